CREATE CONSTRAINT summary_job_cover_key IF NOT EXISTS FOR (j:SummaryJob) REQUIRE j.coverKey IS UNIQUE
