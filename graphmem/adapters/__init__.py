"""Adapters that plug graphmem into agent frameworks, one module per framework.

Each module imports its framework itself (install the matching extra), so ``import graphmem`` and
this package never need one:

- :mod:`graphmem.adapters.langgraph`: ``GraphMemoryStore``, a LangGraph ``BaseStore`` on graphmem
  items (``pip install 'graphmem[langgraph]'``);
- :mod:`graphmem.adapters.langchain`: ``GraphMemoryChatMessageHistory`` (a LangChain chat history on
  a graphmem session) and ``GraphMemoryRetriever`` (``pip install 'graphmem[langchain]'``);
- :mod:`graphmem.adapters.openai_agents`: ``GraphMemorySession``, an OpenAI Agents SDK session on a
  graphmem session (``pip install 'graphmem[openai-agents]'``).
"""

from __future__ import annotations

__all__: list[str] = []
