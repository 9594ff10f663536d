/// The control layer: what operators change while the gateway runs (the config file and its watcher, OAuth
/// sign-ins), above the engine that runs the upstreams.
enum ControlLayer {}
