"""A LangChain chain whose chat history is a graphmem session, searched with graphmem's retriever.

No LLM and no network: the "model" is a function that says how many messages it was given, so the
history's effect shows. Each exchange goes into the history, which stores it as a graphmem turn; the
retriever then finds the right one by meaning. Run it against the managed server (or
``GRAPHMEM_NEO4J_URI``)::

    python examples/langchain_history.py [--cwd DIR] [--keep]
"""

from __future__ import annotations

import argparse
import uuid

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from graphmem.adapters.langchain import GraphMemoryChatMessageHistory, GraphMemoryRetriever
from graphmem.memory import open_memory


def model(messages: list[BaseMessage]) -> AIMessage:
    """Stands for a chat model: it sees the history plus the new message."""
    return AIMessage(f"({len(messages)} messages in the prompt) noted")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cwd", default="/examples/langchain", help="the directory the session is filed under")
    parser.add_argument("--keep", action="store_true", help="keep the session")
    args = parser.parse_args()
    with open_memory(start=True) as mem:
        session_id = uuid.uuid4().hex
        history = GraphMemoryChatMessageHistory(mem, session_id, cwd=args.cwd)
        for text in ["my cat is called Miso", "I moved to Lyon last year"]:
            print(f"> {text}")
            message = HumanMessage(text)
            reply = model([*history.messages, message])
            history.add_messages([message, reply])  # one turn
            print(f"< {reply.content}")
        print(f"history: {len(history.messages)} messages in {mem.get_session(session_id).turn_count} turns")
        mem.embed_pending()  # what `graphmem worker` does in the background
        mem.await_text_index()
        retriever = GraphMemoryRetriever(mem=mem, scope=f"session:{session_id}", k=1)
        query = "where do I live?"
        print(f"search {query!r}: {retriever.invoke(query)[0].page_content.splitlines()[0]}")
        if not args.keep:
            history.clear()
            print("removed the session")


if __name__ == "__main__":
    main()
