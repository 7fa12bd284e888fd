@_exported import RelayDBus
@_exported import RelayREPL
@_exported import RelayRuntime
