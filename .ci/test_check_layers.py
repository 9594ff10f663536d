#!/usr/bin/env python3
"""Tests of .ci/check-layers: every form of import of a higher target is refused, and Package.swift must declare
exactly what each target imports. Feeds the checker small synthetic trees and manifests (in the shape of
`swift package dump-package`), so it runs without Swift and without pytest: `python3 .ci/test_check_layers.py`.
"""
import importlib.machinery
import importlib.util
import pathlib
import tempfile
import textwrap
import unittest

_PATH = pathlib.Path(__file__).resolve().parent / "check-layers"
_LOADER = importlib.machinery.SourceFileLoader("check_layers", str(_PATH))
_SPEC = importlib.util.spec_from_loader("check_layers", _LOADER)
check_layers = importlib.util.module_from_spec(_SPEC)
_LOADER.exec_module(check_layers)

# Every way Swift lets a file import a module, with the module as `{m}`; each must be seen as an import of it.
IMPORT_FORMS = [
    "import {m}",
    "  import {m}",
    "@preconcurrency import {m}",
    "@_exported import {m}",
    "@_implementationOnly import {m}",
    "@testable import {m}",
    "@_spi(Internal) import {m}",
    "@_spi( Internal ) @testable import {m}",
    "private import {m}",
    "fileprivate import {m}",
    "package import {m}",
    "public import {m}",
    "internal import {m}",
    "@preconcurrency public import {m}",
    "public @preconcurrency import {m}",
    "@_spi(A) @_spi(B) @preconcurrency @testable internal import {m}",
    "import struct {m}.Gateway",
    "import class {m}.Gateway",
    "import enum {m}.Gateway",
    "import protocol {m}.Gateway",
    "import typealias {m}.Gateway",
    "import func {m}.start",
    "import var {m}.level",
    "import let {m}.level",
    "@preconcurrency import struct {m}.Gateway",
    "import {m}.Submodule",
    "import {m} . Submodule",
    "import `{m}`",
    "import Synchronization; import {m}",
    "/* why */ import {m}",
]

# Text that mentions an import without being one.
NOT_IMPORTS = [
    "// import {m}",
    "/* import {m} */",
    "/*\nimport {m}\n*/",
    'let text = "import {m}"',
    'let text = """\nimport {m}\n"""',
    "let important = {m}Value",
    "func reimport() {{}}",
]


def regular(name, *dependencies, products=()):
    return {
        "name": name,
        "type": "regular",
        "dependencies": [{"byName": [d, None]} for d in dependencies]
        + [{"product": [p, "swift-" + p.lower(), None, None]} for p in products],
    }


def manifest(*targets):
    return {"targets": list(targets)}


class TreeTestCase(unittest.TestCase):
    """A temporary project root holding the files a test writes."""

    def setUp(self):
        self._directory = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self._directory.name)

    def tearDown(self):
        self._directory.cleanup()

    def write(self, relative, text):
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")

    def problems(self, package):
        return check_layers.check(self.root, package)


# Protocol (layer 0) below Engine (layer 2) below Front (layer 4); Testing (layer 3) is for tests only.
BASE = [
    regular("YrdenProtocol"),
    regular("YrdenEngine", "YrdenProtocol", products=["Logging"]),
    regular("YrdenTesting", "YrdenEngine"),
]


class CleanTreeTests(TreeTestCase):
    def write_clean_tree(self):
        self.write("Sources/YrdenProtocol/Message.swift", "import FoundationEssentials\nstruct Message {}\n")
        self.write("Sources/YrdenEngine/Engine.swift", "import Logging\n@preconcurrency import YrdenProtocol\n")
        self.write("Sources/YrdenTesting/Fake.swift", "@_spi(Testing) import YrdenEngine\n")
        self.write("Tests/YrdenEngineTests/EngineTests.swift", "import Testing\n@testable import YrdenEngine\n")

    def test_a_clean_tree_passes(self):
        self.write_clean_tree()
        tests = {"name": "YrdenEngineTests", "type": "test", "dependencies": [{"target": ["YrdenEngine", None]}]}
        self.assertEqual(self.problems(manifest(*BASE, tests)), [])

    def test_mentions_of_an_import_are_not_imports(self):
        self.write_clean_tree()
        for form in NOT_IMPORTS:
            with self.subTest(form=form):
                self.write("Sources/YrdenProtocol/Mention.swift", form.format(m="YrdenEngine") + "\n")
                self.assertEqual(self.problems(manifest(*BASE)), [])


class LayerTests(TreeTestCase):
    def test_every_form_of_importing_a_higher_target_is_refused(self):
        for form in IMPORT_FORMS:
            with self.subTest(form=form):
                text = "import Synchronization\n\n" + form.format(m="YrdenEngine") + "\n"
                self.write("Sources/YrdenProtocol/Upward.swift", text)
                problems = self.problems(manifest(*BASE))
                layer = [p for p in problems if "a target imports only lower layers" in p]
                self.assertEqual(len(layer), 1, problems)
                self.assertTrue(layer[0].startswith("Sources/YrdenProtocol/Upward.swift:3: YrdenProtocol"), layer)
                undeclared = [p for p in problems if "does not declare" in p]
                self.assertEqual(len(undeclared), 1, problems)

    def test_an_attribute_on_the_line_before_still_makes_it_an_import(self):
        self.write("Sources/YrdenProtocol/Upward.swift", "@preconcurrency\n@_exported\npublic import YrdenEngine\n")
        problems = self.problems(manifest(*BASE))
        self.assertTrue(any("a target imports only lower layers" in p for p in problems), problems)

    def test_a_target_of_the_same_layer_is_refused(self):
        package = manifest(regular("YrdenProtocol", "YrdenStorage"), regular("YrdenStorage"))
        self.write("Sources/YrdenProtocol/Sideways.swift", "private import YrdenStorage\n")
        self.write("Sources/YrdenStorage/Files.swift", "struct Files {}\n")
        problems = self.problems(package)
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("(layer 0) imports YrdenStorage (layer 0)", problems[0])

    def test_test_support_is_refused_to_shipped_targets_in_every_form(self):
        package = manifest(*BASE, regular("YrdenFront", "YrdenTesting"))
        for form in IMPORT_FORMS:
            with self.subTest(form=form):
                self.write("Sources/YrdenFront/Front.swift", form.format(m="YrdenTesting") + "\n")
                problems = self.problems(package)
                self.assertTrue(any("which is for tests only" in p for p in problems), problems)

    def test_foundation_is_refused_in_every_form(self):
        for form in IMPORT_FORMS:
            with self.subTest(form=form):
                self.write("Sources/YrdenProtocol/Message.swift", form.format(m="Foundation") + "\n")
                problems = self.problems(manifest(*BASE))
                self.assertEqual(len(problems), 1, problems)
                self.assertIn("imports Foundation; import FoundationEssentials instead", problems[0])

    def test_a_target_without_a_layer_is_refused(self):
        self.write("Sources/YrdenNew/New.swift", "struct New {}\n")
        problems = self.problems(manifest(*BASE, regular("YrdenNew")))
        self.assertIn("Sources/YrdenNew: no layer for this target in .ci/check-layers (and ARCHITECTURE.md)", problems)

    def test_tests_may_import_any_layer_they_declare(self):
        tests = {"name": "YrdenProtocolTests", "type": "test", "dependencies": [{"byName": ["YrdenTesting", None]}]}
        self.write("Tests/YrdenProtocolTests/Tests.swift", "@testable import YrdenTesting\n")
        self.assertEqual(self.problems(manifest(*BASE, tests)), [])


class ManifestTests(TreeTestCase):
    def test_every_form_of_an_undeclared_import_of_a_project_target_is_refused_with_the_fix(self):
        for form in IMPORT_FORMS:
            with self.subTest(form=form):
                self.write("Sources/YrdenEngine/Engine.swift", "import Logging\nimport YrdenProtocol\n")
                self.write("Sources/YrdenEngine/Lines.swift", "\n" + form.format(m="YrdenLineIO") + "\n")
                problems = self.problems(manifest(*BASE, regular("YrdenLineIO")))
                self.assertEqual(
                    problems,
                    [
                        "Sources/YrdenEngine/Lines.swift:2: YrdenEngine imports YrdenLineIO, which Package.swift "
                        'does not declare; add "YrdenLineIO" to the dependencies of .target(name: "YrdenEngine") '
                        "in Package.swift"
                    ],
                )

    def test_an_undeclared_import_in_a_test_target_is_refused(self):
        tests = {"name": "YrdenEngineTests", "type": "test", "dependencies": [{"byName": ["YrdenEngine", None]}]}
        self.write("Tests/YrdenEngineTests/Tests.swift", "@testable import YrdenEngine\nimport YrdenProtocol\n")
        problems = self.problems(manifest(*BASE, tests))
        self.assertEqual(len(problems), 1, problems)
        self.assertTrue(problems[0].startswith("Tests/YrdenEngineTests/Tests.swift:2: YrdenEngineTests imports"))

    def test_a_declared_project_target_no_file_imports_is_refused(self):
        self.write("Sources/YrdenEngine/Engine.swift", "import Logging\n")
        problems = self.problems(manifest(*BASE))
        self.assertEqual(
            problems,
            [
                "Package.swift: YrdenEngine declares a dependency on YrdenProtocol that no file of "
                'Sources/YrdenEngine imports; remove it from the dependencies of .target(name: "YrdenEngine") '
                "(or import it where it is used)"
            ],
        )

    def test_a_declared_product_no_file_imports_is_refused(self):
        self.write("Sources/YrdenEngine/Engine.swift", "import YrdenProtocol\n")
        problems = self.problems(manifest(*BASE))
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("YrdenEngine declares a dependency on Logging that no file", problems[0])

    def test_an_undeclared_import_of_a_product_the_package_uses_is_refused(self):
        self.write("Sources/YrdenProtocol/Log.swift", "@preconcurrency import Logging\n")
        problems = self.problems(manifest(*BASE))
        self.assertEqual(len(problems), 1, problems)
        self.assertIn(
            'add .product(name: "Logging", package: "swift-logging") to the dependencies of '
            '.target(name: "YrdenProtocol")',
            problems[0],
        )

    def test_a_target_declared_with_target_and_a_custom_path_is_read(self):
        bench = {
            "name": "yrden-search-bench",
            "type": "executable",
            "path": "Benchmarks/SearchBench",
            "dependencies": [{"target": ["YrdenProtocol", None]}],
        }
        self.write("Benchmarks/SearchBench/main.swift", "print(1)\n")
        problems = self.problems(manifest(regular("YrdenProtocol"), bench))
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("no file of Benchmarks/SearchBench imports", problems[0])


if __name__ == "__main__":
    unittest.main()
