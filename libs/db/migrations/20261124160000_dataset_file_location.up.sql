-- Where a stored dataset file's bytes are: in dataset_file_chunks ('postgres') or in the S3-compatible object store
-- under <prefix>/<sha256> ('s3'). The row is the store's record either way (size, stored_at for gc's minimum age),
-- so the version manifest (dataset_version_files), listing and gc work the same for both.
ALTER TABLE dataset_files ADD COLUMN location text NOT NULL DEFAULT 'postgres' CHECK (location IN ('postgres', 's3'));
