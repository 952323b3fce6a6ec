"""The memory service: ``graphmem serve``, an HTTP API and a dashboard over a memory.

Needs the ``service`` extra (FastAPI and uvicorn): ``pip install 'graphmem[service]'``.
"""

from .app import create_app
from .auth import is_loopback, load_or_create_token
from .common import ServiceConfig
from .server import run, serve_in_thread

__all__ = ["ServiceConfig", "create_app", "is_loopback", "load_or_create_token", "run", "serve_in_thread"]
