@_exported import RelayRuntime
