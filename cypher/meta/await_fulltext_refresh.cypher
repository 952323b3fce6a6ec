// Wait until the eventually consistent full-text indexes have applied every committed update.
CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()
