import { questionSkeleton } from './question-skeleton';

const schema = {
  tables: [
    { name: 'airports', columns: [{ name: 'airport_code' }, { name: 'name' }, { name: 'elevation_ft' }, { name: 'city' }] },
    { name: 'flights', columns: [{ name: 'flight_id' }, { name: 'departureDelayMin' }, { name: 'origin' }] },
  ],
};

describe('questionSkeleton', () => {
  it('masks schema mentions and values and keeps the structure words', () => {
    expect(questionSkeleton('What is the highest airport in the database?', schema)).toBe('what is the highest _ in the database?');
    expect(questionSkeleton('How many flights left Heathrow on 14 February 2024?', schema)).toBe('how many _ left _ on _?');
    expect(questionSkeleton('List the names of airports whose city is "Paris".', schema)).toBe('list the names of _ whose _ is _.');
  });

  it('matches camelCase and snake_case names by their words, plural or singular', () => {
    expect(questionSkeleton('Show the departure delay of each flight.', schema)).toBe('show the _ of each _.');
    expect(questionSkeleton('What is the elevation of the cities?', schema)).toBe('what is the _ of the _?');
  });

  it('keeps a capitalised first word and masks capitalised names after it', () => {
    expect(questionSkeleton('Airports in Denver Colorado?', schema)).toBe('_ in _?');
  });
});
