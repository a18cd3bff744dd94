"""memini-core: semantic memory with trust, a memory graph and a project index."""
