import Testing
import YrdenProtocol

/// Redaction fails closed: whatever the text, a credential in it is found, even when the text is no valid URL.
@Suite struct URLCredentialsTests {
    @Test(arguments: [
        ("https://user:pw@host/mcp", ["pw"]),
        ("https://user:p@ss@host/", ["p@ss"]),
        ("https://a@b:pw@host/", ["pw"]),
        ("https://u:${PASS}@${HOST}/mcp?token=${QTOKEN}", ["${PASS}", "${QTOKEN}"]),
        ("HTTPS://user:pw@host\\path?x=1", ["pw"]),
        ("https://host/mcp?api_key=k1&region=eu&SIG=s1#token=frag", ["k1", "s1"]),
        ("https://host:8080/@scope/pkg?email=a@b", []),
        ("https://[::1]:8080/@scope", []),
        ("https://user@host/", []),
        ("https://user:@host/", []),
    ])
    func credentialsAreFound(_ url: String, _ expected: [String]) {
        #expect(URLCredentials.credentials(in: url) == expected)
    }

    @Test func aPasswordWithAnUnescapedSlashOrQuestionMarkIsStillHidden() {
        // No client accepts these, so they turn up in error messages, where the password must not.
        #expect(URLCredentials.credentials(in: "https://user:pa/ss@host/mcp") == ["pa/ss"])
        #expect(URLCredentials.credentials(in: "https://user:pa?ss@host/mcp?token=t") == ["pa?ss", "t"])
        #expect(URLCredentials.credentials(in: "https://user:pa#ss@host/") == ["pa#ss"])
        #expect(
            URLCredentials.scrubbing("connect to https://user:pa/ss@host/mcp failed", mark: "*")
                == "connect to https://user:*@host/mcp failed"
        )
    }

    @Test func percentEncodedParameterNamesAreReadAsTheServerReadsThem() {
        #expect(URLCredentials.credentials(in: "https://host/?t%6Fken=s3cret&%61pi%5Fkey=k") == ["s3cret", "k"])
        #expect(URLCredentials.credentials(in: "https://host/?a%zzb=v&x%4=w") == [])
    }
}
