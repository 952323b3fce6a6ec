"""The managed local Neo4j server: install from Maven Central, configure, start, stop, status."""

from .java import JavaRuntime, find_java, list_javas
from .server import BROWSER_VERSION, ManagedServer, ServerState, port_free

__all__ = ["BROWSER_VERSION", "JavaRuntime", "ManagedServer", "ServerState", "find_java", "list_javas", "port_free"]
