"""A chat agent with a long-term memory in graphmem, on any OpenAI-compatible endpoint.

Each message goes through one loop: the conversation's session (per agent, channel and user), the
memory context before the call (live excerpts of observed rooms, relevant past turns and summaries,
known facts), the model with graphmem's memory tools (it searches and stores as it sees fit), the
tool calls run against the graph, then the exchange stored as a turn. Run it::

    OPENAI_API_KEY=... python examples/chat_agent.py --agent pet --channel cli --user david
    OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_API_KEY=x python examples/chat_agent.py --model llama3.1

One message per line on stdin, one answer per line on stdout. graphmem's own settings
(``GRAPHMEM_NEO4J_URI``, ``GRAPHMEM_CHAT_ROOT``, ...) come from the environment as usual.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import openai

from graphmem import GraphMemory
from graphmem.errors import GraphMemError
from graphmem.memory import open_memory

SYSTEM = """You are {agent}, a friendly assistant with a long-term memory. Use the memory tools: search
before answering a question about the user or their people, store what is worth remembering (connections,
not general knowledge), and correct a memory by storing the new statement. Answer briefly."""


def answer(mem: GraphMemory, client: openai.OpenAI, model: str, agent: str, channel: str, user: str,
           text: str, *, max_steps: int = 6) -> str:
    """One message of ``user`` on ``channel`` to ``agent``: context, model + memory tools, stored turn."""
    session = mem.open_conversation(agent, channel, user).session
    tools = mem.chat_tools(agent)
    context = mem.chat_context(session.id, text)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM.format(agent=agent) + ("\n\n" + context.text if context.text else "")},
        {"role": "user", "content": text},
    ]
    reply = ""
    for _ in range(max_steps):
        completion = client.chat.completions.create(model=model, messages=messages,  # type: ignore[arg-type]
                                                    tools=tools.openai())  # type: ignore[arg-type]
        message = completion.choices[0].message
        if not message.tool_calls:
            reply = message.content or ""
            break
        messages.append({"role": "assistant", "content": message.content,
                         "tool_calls": [call.model_dump() for call in message.tool_calls]})
        for call in message.tool_calls:
            name, arguments = call.function.name, call.function.arguments  # type: ignore[union-attr]
            try:
                result: dict[str, Any] = tools.call(name, arguments)
            except (GraphMemError, ValueError) as e:  # the model reads the reason and may try again
                result = {"error": str(e)}
            messages.append({"role": "tool", "tool_call_id": call.id,
                             "content": json.dumps(result, ensure_ascii=False, default=str)})
    mem.store_turn(session.id, text, reply or "(no answer)")
    return reply


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--agent", default="pet")
    p.add_argument("--channel", default="cli")
    p.add_argument("--user", default=os.environ.get("USER", "user"))
    p.add_argument("--model", default=os.environ.get("OPENAI_MODEL", "gpt-4o-mini"))
    args = p.parse_args(argv)
    client = openai.OpenAI(base_url=os.environ.get("OPENAI_BASE_URL"), api_key=os.environ.get("OPENAI_API_KEY"))
    with open_memory() as mem:
        for line in sys.stdin:
            if line.strip():
                print(answer(mem, client, args.model, args.agent, args.channel, args.user, line.strip()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
