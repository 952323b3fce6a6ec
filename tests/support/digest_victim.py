"""A process that runs the chat rooms' digest and blocks for ever right after storing its first fact,
so a test can SIGKILL it half-way. Usage: ``python -m tests.support.digest_victim ROOM SCOPE BASE_URL API_KEY``
(the Neo4j connection from the environment); prints ``stored <fact id>`` once the first fact is stored."""

from __future__ import annotations

import sys
import threading

from graphmem.chat import DigestConfig
from graphmem.facts import FactExtractor, RememberResult
from graphmem.memory import open_memory


def main(room: str, scope: str, base_url: str, api_key: str) -> None:
    mem = open_memory()
    digester = mem.digester(FactExtractor("gpt-4o-mini", api_key=api_key, base_url=base_url),
                            DigestConfig(scope=scope))

    def stored(result: RememberResult) -> None:
        print(f"stored {result.fact.id}", flush=True)
        threading.Event().wait()  # killed here

    digester.run([room], on_fact=stored)


if __name__ == "__main__":
    main(*sys.argv[1:5])
