import { commonEnvSchema, datasetStoreSettings } from './env';
import { ConfigError, parseEnv } from './load-env';

const settingsOf = (env: Record<string, string>) => datasetStoreSettings(parseEnv(commonEnvSchema, env, 'test environment'), 'test environment');

describe('the dataset store the environment names', () => {
  it('is Postgres unless SQLSWEEP_DATASET_STORE=s3', () => {
    expect(settingsOf({})).toEqual({ kind: 'postgres' });
    expect(settingsOf({ SQLSWEEP_S3_BUCKET: 'ignored' })).toEqual({ kind: 'postgres' });
  });

  it('reads the S3 settings (region from SQLSWEEP_S3_REGION, else AWS_REGION, else us-east-1; prefix without outer slashes)', () => {
    expect(settingsOf({
      SQLSWEEP_DATASET_STORE: 's3', SQLSWEEP_S3_ENDPOINT: 'http://127.0.0.1:9000', SQLSWEEP_S3_BUCKET: 'datasets',
      SQLSWEEP_S3_PREFIX: '/team/sqlsweep/', AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'key', AWS_SECRET_ACCESS_KEY: 'secret',
    })).toEqual({
      kind: 's3', endpoint: 'http://127.0.0.1:9000', bucket: 'datasets', prefix: 'team/sqlsweep', region: 'eu-west-1',
      accessKeyId: 'key', secretAccessKey: 'secret',
    });
    expect(settingsOf({ SQLSWEEP_DATASET_STORE: 's3', SQLSWEEP_S3_BUCKET: 'datasets' })).toMatchObject({ prefix: 'sqlsweep/datasets', region: 'us-east-1', endpoint: undefined });
  });

  it('refuses an S3 store without a bucket, or with one AWS key of two, naming the variable', () => {
    expect(() => settingsOf({ SQLSWEEP_DATASET_STORE: 's3' })).toThrow(ConfigError);
    expect(() => settingsOf({ SQLSWEEP_DATASET_STORE: 's3' })).toThrow(/SQLSWEEP_S3_BUCKET: required when SQLSWEEP_DATASET_STORE=s3/);
    expect(() => settingsOf({ SQLSWEEP_DATASET_STORE: 's3', SQLSWEEP_S3_BUCKET: 'datasets', AWS_ACCESS_KEY_ID: 'key' })).toThrow(/AWS_SECRET_ACCESS_KEY: set it too/);
  });

  it('refuses a store kind, endpoint or bucket that cannot be right, naming the variable', () => {
    expect(() => settingsOf({ SQLSWEEP_DATASET_STORE: 'minio' })).toThrow(/SQLSWEEP_DATASET_STORE: /);
    expect(() => settingsOf({ SQLSWEEP_DATASET_STORE: 's3', SQLSWEEP_S3_BUCKET: 'd', SQLSWEEP_S3_ENDPOINT: '127.0.0.1:9000' })).toThrow(/SQLSWEEP_S3_ENDPOINT: must be a URL/);
    expect(() => settingsOf({ SQLSWEEP_DATASET_STORE: 's3', SQLSWEEP_S3_BUCKET: 'My_Bucket' })).toThrow(/SQLSWEEP_S3_BUCKET: an S3 bucket name/);
  });
});
