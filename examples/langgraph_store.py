"""A LangGraph graph whose long-term memory is graphmem (no LLM, no network).

Each user's memories live in the namespace ``("users", <user>, "memories")`` of a graphmem store:
"remember ..." stores one, any other message searches them by meaning (graphmem's embedder) and
answers with the closest. Run it against the managed server (or ``GRAPHMEM_NEO4J_URI``)::

    python examples/langgraph_store.py [--store NAME] [--keep]

It prints each answer, then removes what it stored unless ``--keep`` is given.
"""

from __future__ import annotations

import argparse
import uuid
from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from graphmem.adapters.langgraph import GraphMemoryStore
from graphmem.memory import open_memory


class State(TypedDict):
    user: str
    message: str
    reply: str


def respond(state: State, runtime: Runtime[None]) -> dict[str, str]:
    """Store a memory or answer from the closest one."""
    assert runtime.store is not None
    namespace = ("users", state["user"], "memories")
    if state["message"].startswith("remember "):
        runtime.store.put(namespace, uuid.uuid4().hex, {"text": state["message"].removeprefix("remember ")})
        return {"reply": "noted"}
    hits = runtime.store.search(namespace, query=state["message"], limit=1)
    return {"reply": f"you told me: {hits[0].value['text']}" if hits else "I know nothing about that yet"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", default="langgraph-example", help="the graphmem store's name")
    parser.add_argument("--keep", action="store_true", help="keep the memories stored")
    args = parser.parse_args()
    with open_memory(start=True) as mem:
        store = GraphMemoryStore(mem, name=args.store)
        builder = StateGraph(State)
        builder.add_node("respond", respond)
        builder.add_edge(START, "respond")
        builder.add_edge("respond", END)
        graph = builder.compile(store=store)
        for user, message in [("ana", "remember I drink green tea every morning"),
                              ("bob", "remember I am allergic to peanuts"),
                              ("ana", "what do I drink?"), ("bob", "what can't I eat?")]:
            print(f"{user}: {graph.invoke({'user': user, 'message': message, 'reply': ''})['reply']}")
        if not args.keep:
            print(f"removed {store.clear()} items")


if __name__ == "__main__":
    main()
