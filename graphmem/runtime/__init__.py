"""The coding-CLI hook runtime: the hook client, the local daemon, the spool and the cursors.

* :mod:`graphmem.runtime.client`: ``graphmem hook <tool>``, standard library only (fast start);
* :mod:`graphmem.runtime.daemon`: ``graphmem daemon``, the warm process the hooks talk to;
* :mod:`graphmem.runtime.service`: what each hook event does (shared by the daemon and the
  daemon-less fallback);
* :mod:`graphmem.runtime.spool`: turns kept on disk while Neo4j is unreachable, replayed exactly
  once;
* :mod:`graphmem.runtime.cursors`: where each transcript's last ingest stopped.

Nothing is imported here, so ``graphmem hook`` pays only for the client module.
"""

__all__: list[str] = []
