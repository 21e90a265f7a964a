-- Dataset files live in Postgres by content (sha256), so every worker can make its own replicas wherever it runs:
-- `datasets add` stores each file of a version once (a file shared by versions, or registered again from another
-- path, is stored once), and a worker materializes the databases it needs into its own SQLSWEEP_DATA_DIR.
-- A file is complete when its dataset_files row is committed: the row and its chunks go in one transaction.
CREATE TABLE dataset_files (
  sha256      text PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  size        bigint NOT NULL CHECK (size >= 0),
  chunk_count integer NOT NULL CHECK (chunk_count >= 0),
  stored_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE dataset_file_chunks (
  sha256 text NOT NULL REFERENCES dataset_files(sha256) ON DELETE CASCADE,
  idx    integer NOT NULL,
  data   bytea NOT NULL,
  PRIMARY KEY (sha256, idx)
);
-- Chunks are already compressed or incompressible as often as not; skip TOAST's compression attempt.
ALTER TABLE dataset_file_chunks ALTER COLUMN data SET STORAGE EXTERNAL;

-- The files a version is made of: exactly what its content hash covers (relative path and sha256). A stored file
-- a version names cannot be removed (`datasets gc` removes only files no version names).
CREATE TABLE dataset_version_files (
  version_id integer NOT NULL REFERENCES dataset_versions(id) ON DELETE CASCADE,
  path       text NOT NULL,
  sha256     text NOT NULL REFERENCES dataset_files(sha256),
  size       bigint NOT NULL,
  PRIMARY KEY (version_id, path)
);
CREATE INDEX dataset_version_files_sha256 ON dataset_version_files (sha256);
