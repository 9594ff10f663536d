import YrdenConfig

extension LoadedConfig {
    /// Where OAuth tokens and tool pins are kept: `--data-dir`, `gateway.dataDir` or `YRDEN_DATA_DIR`; by
    /// default `$XDG_DATA_HOME/yrden` or `~/.local/share/yrden`; `nil` when none of these can be found.
    var dataDirectory: String? {
        if let configured = config.gateway.dataDir { return configured }
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") { return xdg + "/yrden" }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.local/share/yrden" }
        return nil
    }
}
