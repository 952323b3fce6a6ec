CREATE INDEX note_vault_name IF NOT EXISTS FOR (n:Note) ON (n.vault, n.name)
