import Crypto
import YrdenProtocol

/// Unguessable values (PKCE verifiers, `state`) from the system's cryptographic random source.
package enum SecureRandom {
    /// `count` random bytes.
    package static func bytes(_ count: Int) -> [UInt8] {
        SymmetricKey(size: SymmetricKeySize(bitCount: count * 8)).withUnsafeBytes { Array($0) }
    }

    /// 256 random bits as 43 base64url characters: the `state` of a flow, never reused.
    package static func token() -> String {
        Base64.encode(bytes(32), urlSafe: true)
    }
}
