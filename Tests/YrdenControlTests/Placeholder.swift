import Testing

@Suite struct ControlPlaceholderTests {}
