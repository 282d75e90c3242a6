"""taash arena: the command line, built-in bots (and, later, the gRPC server and ladder)."""
