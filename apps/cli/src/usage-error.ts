/** A mistake in what the user typed (an unknown or ambiguous id, say): one line on stderr and exit status 2, no stack. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
