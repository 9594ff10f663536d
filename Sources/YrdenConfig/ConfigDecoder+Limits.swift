import YrdenProtocol

/// The `limits` section (see ``LimitSettings``).
///
/// Keys, all optional:
/// - `user`, `profile` (bucket): each user's, each profile's
/// - `users`, `profiles` (user name or profile name → bucket): instead of `user` or `profile` for those named;
///   a profile must exist
/// - `tools` (tool name on `/mcp` → bucket): each user's calls of that tool
/// - `maxBuckets` (integer, 100 to 100,000; default 10,000): a sweep at the bound walks them all, on the loop
///
/// A bucket is `{"rate": N, "burst": M}`: `rate` tokens a second (greater than 0, fractions allowed, at most
/// 1,000,000), `burst` (whole, 1 to 1,000,000; default the rate rounded up, at least 1).
extension ConfigDecoder {
    static let limitsKeys = ["user", "users", "profile", "profiles", "tools", "maxBuckets"]
    static let rateLimitKeys = ["rate", "burst"]

    func decodeLimits(_ reader: JSONReader, profiles: [ProfileSpec]) -> LimitSettings {
        var settings = LimitSettings()
        guard let object = reader.object(known: Self.limitsKeys) else { return settings }
        settings.user = object["user"].flatMap(decodeRateLimit)
        settings.profile = object["profile"].flatMap(decodeRateLimit)
        settings.users = decodeRateLimits(object["users"])
        settings.profiles = decodeRateLimits(object["profiles"]) { name, entry in
            guard profiles.contains(where: { $0.name == name }) else {
                entry.report(
                    "there is no profile \(name.quoted)",
                    fix: "name a profile of \"profiles\", or remove this entry"
                )
                return false
            }
            return true
        }
        settings.tools = decodeRateLimits(object["tools"])
        if let count = object["maxBuckets"]?.integer(in: LimitSettings.maxBucketsRange) {
            settings.maxBuckets = count
        }
        return settings
    }

    private func decodeRateLimits(
        _ reader: JSONReader?,
        accepting accepts: (String, JSONReader) -> Bool = { _, _ in true }
    ) -> [String: RateLimit] {
        var limits: [String: RateLimit] = [:]
        for (key, entry) in reader?.entries() ?? [] where accepts(key, entry) {
            if let limit = decodeRateLimit(entry) { limits[key] = limit }
        }
        return limits
    }

    private func decodeRateLimit(_ reader: JSONReader) -> RateLimit? {
        guard let object = reader.object(known: Self.rateLimitKeys) else { return nil }
        guard let field = object["rate"] else {
            reader.report(
                "the bucket has no rate",
                fix: #"write {"rate": 5, "burst": 10}: 5 calls a second, 10 at once after a quiet spell"#
            )
            return nil
        }
        guard let rate = field.value.doubleValue else {
            field.mismatch(expected: "a number")
            return nil
        }
        guard rate.isFinite, RateLimit.rateRange.contains(rate) else {
            field.report(
                "rate \(field.value.jsonText) is out of range (more than 0, at most 1000000 a second)",
                fix: "write the calls a second, e.g. 5, or 0.5 for one call every two seconds"
            )
            return nil
        }
        var burst = max(1, Int(rate.rounded(.up)))
        if let field = object["burst"] {
            guard let written = field.integer(in: RateLimit.burstRange) else { return nil }
            burst = written
        }
        return RateLimit(rate: rate, burst: burst)
    }
}
