CREATE CONSTRAINT forget_audit_id_unique IF NOT EXISTS FOR (a:ForgetAudit) REQUIRE a.id IS UNIQUE
