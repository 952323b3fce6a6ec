"""An OpenAI Agents SDK agent whose session is kept in graphmem.

Two messages to one agent through ``Runner.run(..., session=GraphMemorySession(...))``: the second run
gets the first exchange back from graphmem, and each exchange is also a graphmem turn (searchable,
summarised by the worker). Any OpenAI-compatible endpoint works (Chat Completions)::

    OPENAI_API_KEY=... python examples/openai_agents_session.py [--model gpt-4.1-mini] [--cwd DIR] [--keep]
    OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_API_KEY=x python examples/openai_agents_session.py --model llama3.1
"""

from __future__ import annotations

import argparse
import asyncio
import uuid

from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
from openai import AsyncOpenAI

from graphmem.adapters.openai_agents import GraphMemorySession
from graphmem.memory import open_memory


async def chat(session: GraphMemorySession, model: str) -> None:
    agent = Agent(name="assistant", instructions="Answer briefly.",
                  model=OpenAIChatCompletionsModel(model=model, openai_client=AsyncOpenAI()))
    for text in ["I am Ana", "What is my name?"]:
        print(f"> {text}")
        result = await Runner.run(agent, text, session=session)
        print(f"< {result.final_output}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="gpt-4.1-mini")
    parser.add_argument("--cwd", default="/examples/openai-agents", help="the directory the session is filed under")
    parser.add_argument("--keep", action="store_true", help="keep the session")
    args = parser.parse_args()
    set_tracing_disabled(True)  # no traces sent to OpenAI's dashboard
    with open_memory(start=True) as mem:
        session = GraphMemorySession(uuid.uuid4().hex, mem, cwd=args.cwd)
        asyncio.run(chat(session, args.model))
        print(f"graphmem turns: {mem.get_session(session.session_id).turn_count}")
        if not args.keep:
            asyncio.run(session.clear_session())
            print("removed the session")


if __name__ == "__main__":
    main()
