-- Airline operations: airports, carriers, fleet, routes, flight legs (one wide row per operated leg,
-- in the spirit of the US BTS on-time table), passengers, bookings and attributed delay causes.
CREATE TABLE airports (
  airport_code TEXT PRIMARY KEY,
  airport_name TEXT NOT NULL,
  city         TEXT NOT NULL,
  country      TEXT NOT NULL,
  latitude     REAL NOT NULL,
  longitude    REAL NOT NULL,
  elevation_ft INTEGER NOT NULL,
  timezone     TEXT NOT NULL,
  runways      INTEGER NOT NULL
);

CREATE TABLE airlines (
  airline_code TEXT PRIMARY KEY,
  airline_name TEXT NOT NULL,
  country      TEXT NOT NULL,
  alliance     TEXT,
  founded_year INTEGER NOT NULL,
  hub_airport  TEXT NOT NULL REFERENCES airports(airport_code)
);

CREATE TABLE aircraft (
  tail_number  TEXT PRIMARY KEY,
  airline_code TEXT NOT NULL REFERENCES airlines(airline_code),
  manufacturer TEXT NOT NULL,
  model        TEXT NOT NULL,
  seats        INTEGER NOT NULL,
  year_built   INTEGER NOT NULL,
  is_widebody  INTEGER NOT NULL
);

CREATE TABLE routes (
  route_id            INTEGER PRIMARY KEY,
  airline_code        TEXT NOT NULL REFERENCES airlines(airline_code),
  flight_number       TEXT NOT NULL UNIQUE,
  origin              TEXT NOT NULL REFERENCES airports(airport_code),
  destination         TEXT NOT NULL REFERENCES airports(airport_code),
  distance_km         INTEGER NOT NULL,
  days_of_week        TEXT NOT NULL,
  departure_time_utc  TEXT NOT NULL
);

CREATE TABLE flights (
  flight_id               INTEGER PRIMARY KEY,
  route_id                INTEGER NOT NULL REFERENCES routes(route_id),
  flight_date             TEXT NOT NULL,
  day_of_week             INTEGER NOT NULL,
  tail_number             TEXT REFERENCES aircraft(tail_number),
  scheduled_departure     TEXT NOT NULL,
  scheduled_arrival       TEXT NOT NULL,
  actual_departure        TEXT,
  actual_arrival          TEXT,
  departure_delay_min     INTEGER,
  arrival_delay_min       INTEGER,
  flight_status           TEXT NOT NULL,
  cancellation_reason     TEXT,
  diverted_to             TEXT REFERENCES airports(airport_code),
  departure_terminal      TEXT,
  departure_gate          TEXT,
  arrival_terminal        TEXT,
  arrival_gate            TEXT,
  gate_changed            INTEGER NOT NULL DEFAULT 0,
  taxi_out_min            INTEGER,
  taxi_in_min             INTEGER,
  wheels_off              TEXT,
  wheels_on               TEXT,
  scheduled_block_min     INTEGER NOT NULL,
  actual_block_min        INTEGER,
  air_time_min            INTEGER,
  distance_km             INTEGER NOT NULL,
  seats_offered           INTEGER NOT NULL,
  passengers_boarded      INTEGER,
  cargo_kg                INTEGER,
  fuel_burned_kg          INTEGER,
  cockpit_crew            INTEGER NOT NULL,
  cabin_crew              INTEGER NOT NULL,
  meal_service            TEXT NOT NULL,
  wifi_available          INTEGER NOT NULL,
  is_codeshare            INTEGER NOT NULL DEFAULT 0,
  UNIQUE (route_id, flight_date)
);

CREATE TABLE delays (
  delay_id   INTEGER PRIMARY KEY,
  flight_id  INTEGER NOT NULL REFERENCES flights(flight_id),
  cause      TEXT NOT NULL,
  delay_code TEXT NOT NULL,
  minutes    INTEGER NOT NULL
);

CREATE TABLE passengers (
  passenger_id        INTEGER PRIMARY KEY,
  first_name          TEXT NOT NULL,
  last_name           TEXT NOT NULL,
  gender              TEXT,
  birth_date          TEXT,
  nationality         TEXT NOT NULL,
  email               TEXT,
  loyalty_tier        TEXT,
  loyalty_airline     TEXT REFERENCES airlines(airline_code),
  member_since        TEXT
);

CREATE TABLE bookings (
  booking_id     INTEGER PRIMARY KEY,
  booking_ref    TEXT NOT NULL UNIQUE,
  passenger_id   INTEGER NOT NULL REFERENCES passengers(passenger_id),
  flight_id      INTEGER NOT NULL REFERENCES flights(flight_id),
  booked_at      TEXT NOT NULL,
  fare_class     TEXT NOT NULL,
  price_usd      REAL NOT NULL,
  seat           TEXT,
  checked_bags   INTEGER NOT NULL,
  booking_status TEXT NOT NULL,
  channel        TEXT NOT NULL
);
