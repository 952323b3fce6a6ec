"""Running the app with uvicorn: in the foreground (``graphmem serve``) or in a thread."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from fastapi import FastAPI

__all__ = ["run", "serve_in_thread"]


def run(app: FastAPI, host: str, port: int, *, log_level: str = "info") -> None:
    """Serve ``app`` until interrupted."""
    uvicorn.run(app, host=host, port=port, log_level=log_level, access_log=log_level == "debug")


@contextmanager
def serve_in_thread(app: FastAPI, host: str = "127.0.0.1", port: int = 0, *,
                    log_level: str = "warning") -> Iterator[str]:
    """Serve ``app`` on a background thread (``port`` 0: a free port) and yield its base URL;
    stopped on exit."""
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, access_log=False, lifespan="off",
                            timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="graphmem-service", daemon=True)
    thread.start()
    try:
        while not server.started:
            if not thread.is_alive():
                raise RuntimeError("the memory service did not start (see its log)")
            thread.join(0.02)
        bound = server.servers[0].sockets[0].getsockname()
        yield f"http://{host}:{bound[1]}"
    finally:
        feed = getattr(getattr(app.state, "graphmem", None), "feed", None)
        if feed is not None:
            feed.close()  # the event streams end first: uvicorn then stops without cancelling them
        server.should_exit = True
        thread.join(30)
