/// Test support for the engine: a scripted fake upstream and a manual clock.
enum TestingSupport {}
