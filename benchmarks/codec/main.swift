import RelayProtocol
print("codec bench: not implemented yet")
