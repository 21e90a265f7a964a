-- Files stored in the object store have no bytes in Postgres: forget them (register their versions again after).
DELETE FROM dataset_version_files vf USING dataset_files f WHERE f.sha256 = vf.sha256 AND f.location = 's3';
DELETE FROM dataset_files WHERE location = 's3';
ALTER TABLE dataset_files DROP COLUMN location;
