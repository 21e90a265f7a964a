-- Deterministic data for the flights database: Q1 2024 operations of nine carriers.
-- All "random" draws come from a Park-Miller LCG (x * 48271 mod 2^31-1) materialised in a TEMP table,
-- or from the same multiplier applied to a row's ids, so every build yields identical data.
-- Times are UTC, written 'YYYY-MM-DD HH:MM'.

CREATE TEMP TABLE rnd (i INTEGER PRIMARY KEY, u REAL NOT NULL);
WITH RECURSIVE g(i, x) AS (
  SELECT 1, 777013
  UNION ALL SELECT i + 1, (x * 48271) % 2147483647 FROM g WHERE i < 200000
)
INSERT INTO rnd SELECT i, x / 2147483647.0 FROM g;

CREATE TEMP TABLE seq (n INTEGER PRIMARY KEY);
WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 12000)
INSERT INTO seq SELECT n FROM g;

-- Airports ---------------------------------------------------------------------------------------
INSERT INTO airports (airport_code, airport_name, city, country, latitude, longitude, elevation_ft, timezone, runways) VALUES
 ('ATL','Hartsfield-Jackson Atlanta International Airport','Atlanta','USA',33.6407,-84.4277,1026,'America/New_York',5),
 ('LAX','Los Angeles International Airport','Los Angeles','USA',33.9416,-118.4085,128,'America/Los_Angeles',4),
 ('ORD','O''Hare International Airport','Chicago','USA',41.9742,-87.9073,672,'America/Chicago',8),
 ('DFW','Dallas/Fort Worth International Airport','Dallas','USA',32.8998,-97.0403,607,'America/Chicago',7),
 ('DEN','Denver International Airport','Denver','USA',39.8561,-104.6737,5434,'America/Denver',6),
 ('JFK','John F. Kennedy International Airport','New York','USA',40.6413,-73.7781,13,'America/New_York',4),
 ('EWR','Newark Liberty International Airport','Newark','USA',40.6895,-74.1745,18,'America/New_York',3),
 ('BOS','Boston Logan International Airport','Boston','USA',42.3656,-71.0096,20,'America/New_York',6),
 ('SFO','San Francisco International Airport','San Francisco','USA',37.6213,-122.3790,13,'America/Los_Angeles',4),
 ('SEA','Seattle-Tacoma International Airport','Seattle','USA',47.4502,-122.3088,433,'America/Los_Angeles',3),
 ('LAS','Harry Reid International Airport','Las Vegas','USA',36.0840,-115.1537,2181,'America/Los_Angeles',4),
 ('MIA','Miami International Airport','Miami','USA',25.7959,-80.2870,8,'America/New_York',4),
 ('MCO','Orlando International Airport','Orlando','USA',28.4312,-81.3081,96,'America/New_York',4),
 ('PHX','Phoenix Sky Harbor International Airport','Phoenix','USA',33.4352,-112.0101,1135,'America/Phoenix',3),
 ('IAH','George Bush Intercontinental Airport','Houston','USA',29.9902,-95.3368,97,'America/Chicago',5),
 ('YYZ','Toronto Pearson International Airport','Toronto','Canada',43.6777,-79.6248,569,'America/Toronto',5),
 ('MEX','Mexico City International Airport','Mexico City','Mexico',19.4361,-99.0719,7316,'America/Mexico_City',2),
 ('LHR','London Heathrow Airport','London','United Kingdom',51.4700,-0.4543,83,'Europe/London',2),
 ('CDG','Paris Charles de Gaulle Airport','Paris','France',49.0097,2.5479,392,'Europe/Paris',4),
 ('FRA','Frankfurt Airport','Frankfurt','Germany',50.0379,8.5622,364,'Europe/Berlin',4),
 ('MUC','Munich Airport','Munich','Germany',48.3538,11.7861,1487,'Europe/Berlin',2),
 ('AMS','Amsterdam Airport Schiphol','Amsterdam','Netherlands',52.3105,4.7683,-11,'Europe/Amsterdam',6),
 ('MAD','Adolfo Suárez Madrid-Barajas Airport','Madrid','Spain',40.4983,-3.5676,2001,'Europe/Madrid',4),
 ('DXB','Dubai International Airport','Dubai','United Arab Emirates',25.2532,55.3657,62,'Asia/Dubai',2),
 ('NRT','Narita International Airport','Tokyo','Japan',35.7720,140.3929,141,'Asia/Tokyo',2),
 ('SIN','Singapore Changi Airport','Singapore','Singapore',1.3644,103.9915,22,'Asia/Singapore',3);

-- Airlines and fleet -----------------------------------------------------------------------------
INSERT INTO airlines (airline_code, airline_name, country, alliance, founded_year, hub_airport) VALUES
 ('AA','American Airlines','USA','oneworld',1926,'DFW'),
 ('DL','Delta Air Lines','USA','SkyTeam',1925,'ATL'),
 ('UA','United Airlines','USA','Star Alliance',1926,'ORD'),
 ('WN','Southwest Airlines','USA',NULL,1967,'DEN'),
 ('B6','JetBlue Airways','USA',NULL,1998,'JFK'),
 ('BA','British Airways','United Kingdom','oneworld',1974,'LHR'),
 ('LH','Lufthansa','Germany','Star Alliance',1953,'FRA'),
 ('AF','Air France','France','SkyTeam',1933,'CDG'),
 ('EK','Emirates','United Arab Emirates',NULL,1985,'DXB');

CREATE TEMP TABLE models (model TEXT PRIMARY KEY, manufacturer TEXT, seats INTEGER, is_widebody INTEGER, burn_kg_per_km REAL);
INSERT INTO models VALUES
 ('A220-300','Airbus',140,0,2.3),('A320neo','Airbus',180,0,2.6),('A321neo','Airbus',196,0,2.9),
 ('737-800','Boeing',172,0,3.0),('737 MAX 8','Boeing',172,0,2.6),('787-9','Boeing',290,1,5.6),
 ('777-300ER','Boeing',350,1,7.6),('A350-900','Airbus',300,1,5.9),('A380-800','Airbus',500,1,11.5),
 ('767-300ER','Boeing',211,1,5.2);

CREATE TEMP TABLE fleet_plan (airline_code TEXT, model TEXT, how_many INTEGER, seat_delta INTEGER);
INSERT INTO fleet_plan VALUES
 ('AA','737-800',4,0),('AA','A321neo',3,0),('AA','787-9',2,5),('AA','777-300ER',1,-46),
 ('DL','A220-300',3,-31),('DL','A321neo',3,-5),('DL','A350-900',2,6),('DL','767-300ER',2,5),
 ('UA','737 MAX 8',4,-6),('UA','A320neo',2,-30),('UA','787-9',3,-33),('UA','777-300ER',1,0),
 ('WN','737-800',5,3),('WN','737 MAX 8',5,3),
 ('B6','A320neo',3,-18),('B6','A321neo',3,4),
 ('BA','A320neo',2,0),('BA','777-300ER',2,-64),('BA','A350-900',1,31),('BA','A380-800',1,-31),
 ('LH','A321neo',2,19),('LH','A350-900',2,-7),('LH','A320neo',1,0),
 ('AF','A220-300',2,8),('AF','777-300ER',2,31),('AF','A350-900',1,24),
 ('EK','777-300ER',3,4),('EK','A380-800',3,17);

CREATE TEMP TABLE fleet_stage AS
SELECT fp.airline_code, fp.model, m.manufacturer, m.seats + fp.seat_delta AS seats, m.is_widebody,
       ROW_NUMBER() OVER (PARTITION BY fp.airline_code ORDER BY fp.rowid, s.n) AS k
FROM fleet_plan fp JOIN models m ON m.model = fp.model JOIN seq s ON s.n <= fp.how_many;

INSERT INTO aircraft (tail_number, airline_code, manufacturer, model, seats, year_built, is_widebody)
SELECT CASE f.airline_code
         WHEN 'BA' THEN 'G-' || substr('XWBAEUUBXLEAZBNAXLDJNEUPSDXKAZ', 2 * f.k - 1, 2) || char(65 + f.k % 26, 66 + f.k % 23)
         WHEN 'LH' THEN 'D-A' || substr('IPNRBVXCMQ', f.k, 1) || char(65 + f.k * 7 % 26, 67 + f.k * 3 % 23)
         WHEN 'AF' THEN 'F-H' || substr('BNPTUGX', f.k, 1) || char(66 + f.k * 5 % 24, 65 + f.k * 11 % 26)
         WHEN 'EK' THEN 'A6-E' || char(66 + f.k * 3 % 24, 68 + f.k * 7 % 22)
         ELSE 'N' || CAST(100 + (f.k * 137 + unicode(f.airline_code) * 29) % 900 AS TEXT) ||
              CASE f.airline_code WHEN 'AA' THEN 'AN' WHEN 'DL' THEN 'DN' WHEN 'UA' THEN 'UA'
                                  WHEN 'WN' THEN 'WN' ELSE 'JB' END
       END,
       f.airline_code, f.manufacturer, f.model, f.seats,
       CASE WHEN f.model IN ('A220-300','A321neo','737 MAX 8','A350-900','A320neo') THEN 2016 + CAST(r.u * 8 AS INTEGER)
            WHEN f.model IN ('767-300ER','A380-800') THEN 2003 + CAST(r.u * 11 AS INTEGER)
            ELSE 2006 + CAST(r.u * 14 AS INTEGER) END,
       f.is_widebody
FROM fleet_stage f
JOIN rnd r ON r.i = 100 + f.rowid;

CREATE TEMP TABLE fleet_idx AS
SELECT airline_code, is_widebody, tail_number,
       ROW_NUMBER() OVER (PARTITION BY airline_code, is_widebody ORDER BY tail_number) AS k
FROM aircraft;
CREATE TEMP TABLE fleet_size AS SELECT airline_code, is_widebody, COUNT(*) AS n FROM fleet_idx GROUP BY 1, 2;

-- Routes: each pair is flown in both directions, the return leg numbered one higher -----------------
CREATE TEMP TABLE route_plan (airline_code TEXT, out_number INTEGER, a TEXT, b TEXT, days TEXT, out_time TEXT, back_time TEXT);
INSERT INTO route_plan VALUES
 ('AA',100,'DFW','LAX','1234567','14:00','20:30'),('AA',200,'DFW','ORD','1234567','13:00','17:30'),
 ('AA',300,'MIA','JFK','1234567','12:15','17:45'),('AA',400,'DFW','MIA','1234567','15:30','21:10'),
 ('AA',500,'MIA','MEX','1357','16:00','21:30'),('AA',78,'DFW','LHR','1234567','22:30','12:00'),
 ('AA',106,'JFK','LHR','1234567','23:00','13:30'),
 ('DL',400,'ATL','JFK','1234567','12:00','16:30'),('DL',410,'ATL','LAX','1234567','14:30','21:30'),
 ('DL',420,'ATL','MCO','1234567','13:15','16:00'),('DL',430,'ATL','SEA','1234567','15:00','22:30'),
 ('DL',264,'JFK','CDG','1234567','22:00','10:30'),('DL',72,'ATL','AMS','1234567','21:45','10:00'),
 ('DL',440,'ATL','BOS','1234567','11:00','15:15'),
 ('UA',500,'ORD','SFO','1234567','14:00','20:00'),('UA',510,'ORD','EWR','1234567','12:30','17:00'),
 ('UA',520,'EWR','SFO','1234567','13:00','20:30'),('UA',530,'IAH','DEN','1234567','15:00','19:00'),
 ('UA',836,'SFO','NRT','1234567','19:00','03:30'),('UA',960,'EWR','FRA','1234567','22:15','09:30'),
 ('UA',540,'ORD','YYZ','12345','13:00','16:30'),
 ('WN',1200,'DEN','LAS','1234567','14:00','18:00'),('WN',1210,'DEN','PHX','1234567','13:00','16:00'),
 ('WN',1220,'LAS','LAX','1234567','15:00','18:00'),('WN',1230,'DEN','MCO','1234567','13:30','19:30'),
 ('WN',1240,'PHX','LAX','12345','14:30','17:30'),
 ('B6',300,'JFK','BOS','1234567','12:00','14:30'),('B6',310,'JFK','MCO','1234567','13:00','17:30'),
 ('B6',320,'BOS','MCO','1567','12:30','17:30'),('B6',330,'JFK','LAX','1234567','14:00','21:30'),
 ('BA',176,'LHR','JFK','1234567','10:30','22:45'),('BA',458,'LHR','MAD','1234567','07:40','12:00'),
 ('BA',106,'LHR','DXB','1234567','13:45','03:00'),('BA',212,'LHR','BOS','1234567','14:20','23:30'),
 ('LH',400,'FRA','JFK','1234567','10:00','21:30'),('LH',100,'FRA','MUC','1234567','06:00','08:00'),
 ('LH',778,'FRA','SIN','1357','20:00','14:00'),('LH',430,'FRA','ORD','1234567','09:50','20:30'),
 ('AF',1240,'CDG','AMS','1234567','06:30','09:00'),('AF',1300,'CDG','MAD','1234567','07:00','10:30'),
 ('AF',356,'CDG','YYZ','2467','11:00','22:00'),
 ('EK',1,'DXB','LHR','1234567','03:30','13:00'),('EK',201,'DXB','JFK','1234567','04:00','21:00'),
 ('EK',354,'DXB','SIN','1234567','02:00','10:00'),('EK',318,'DXB','NRT','1357','20:00','12:00');

CREATE TEMP TABLE route_stage AS
SELECT airline_code, out_number AS num, a AS origin, b AS destination, days, out_time AS dep FROM route_plan
UNION ALL
SELECT airline_code, out_number + 1, b, a, days, back_time FROM route_plan;

INSERT INTO routes (route_id, airline_code, flight_number, origin, destination, distance_km, days_of_week, departure_time_utc)
SELECT ROW_NUMBER() OVER (ORDER BY rs.airline_code, rs.num),
       rs.airline_code, rs.airline_code || CAST(rs.num AS TEXT), rs.origin, rs.destination,
       CAST(round(6371 * 2 * asin(sqrt(
              pow(sin(radians(d.latitude - o.latitude) / 2), 2)
            + cos(radians(o.latitude)) * cos(radians(d.latitude)) * pow(sin(radians(d.longitude - o.longitude) / 2), 2)))) AS INTEGER),
       rs.days, rs.dep
FROM route_stage rs
JOIN airports o ON o.airport_code = rs.origin
JOIN airports d ON d.airport_code = rs.destination;

-- Flights: every scheduled leg of Q1 2024 with its operational outcome ----------------------------
CREATE TEMP TABLE days AS
SELECT n - 1 AS dayno, date('2024-01-01', '+' || (n - 1) || ' days') AS d,
       (CAST(strftime('%w', date('2024-01-01', '+' || (n - 1) || ' days')) AS INTEGER) + 6) % 7 + 1 AS dow
FROM seq WHERE n <= 91;

CREATE TEMP TABLE terminals (airport_code TEXT PRIMARY KEY, n INTEGER, big_hub INTEGER);
INSERT INTO terminals VALUES
 ('ATL',2,1),('LAX',8,1),('ORD',4,1),('DFW',5,1),('DEN',1,1),('JFK',4,1),('EWR',3,1),('BOS',4,0),('SFO',4,0),
 ('SEA',1,0),('LAS',2,0),('MIA',3,0),('MCO',2,0),('PHX',2,0),('IAH',5,0),('YYZ',2,0),('MEX',2,0),('LHR',4,1),
 ('CDG',3,1),('FRA',2,1),('MUC',2,0),('AMS',1,1),('MAD',4,0),('DXB',3,1),('NRT',3,0),('SIN',4,0);

-- Winter storms that grounded much of an airport's traffic on a given day.
CREATE TEMP TABLE storms (airport_code TEXT, d TEXT);
INSERT INTO storms VALUES
 ('ORD','2024-01-12'),('ORD','2024-01-13'),('ORD','2024-01-16'),('DEN','2024-01-15'),
 ('JFK','2024-01-09'),('EWR','2024-01-09'),('BOS','2024-01-09'),('YYZ','2024-01-17'),('FRA','2024-01-17');

CREATE TEMP TABLE alternates (airport_code TEXT PRIMARY KEY, alternate TEXT);
INSERT INTO alternates VALUES
 ('ORD','DFW'),('DFW','IAH'),('DEN','PHX'),('JFK','EWR'),('EWR','JFK'),('BOS','JFK'),('SFO','LAX'),('SEA','SFO'),
 ('LAS','PHX'),('MIA','MCO'),('MCO','MIA'),('PHX','LAS'),('IAH','DFW'),('YYZ','ORD'),('MEX','IAH'),('LAX','LAS'),
 ('ATL','MCO'),('LHR','AMS'),('CDG','AMS'),('FRA','MUC'),('MUC','FRA'),('AMS','FRA'),('MAD','CDG');

CREATE TEMP TABLE fl0 AS
SELECT ROW_NUMBER() OVER (ORDER BY d.d, r.departure_time_utc, r.route_id) AS flight_id,
       r.route_id, r.airline_code, r.flight_number, r.origin, r.destination, r.distance_km,
       d.d AS flight_date, d.dow, d.dayno,
       d.d || ' ' || r.departure_time_utc AS sched_dep,
       CAST(round((r.distance_km / 12.5 + 35) / 5.0) AS INTEGER) * 5 AS sched_block,
       CASE WHEN r.distance_km > 4500 OR r.airline_code = 'EK' THEN 1 ELSE 0 END AS need_wide,
       CASE WHEN r.origin IN ('ORD','BOS','JFK','EWR','DEN','YYZ','FRA','MUC','AMS','LHR','SEA')
            THEN CASE substr(d.d, 6, 2) WHEN '01' THEN 1.0 WHEN '02' THEN 0.5 ELSE 0.15 END ELSE 0.0 END AS winter,
       EXISTS (SELECT 1 FROM storms s WHERE s.airport_code = r.origin AND s.d = d.d) AS storm
FROM routes r JOIN days d ON instr(r.days_of_week, CAST(d.dow AS TEXT)) > 0;

CREATE TEMP TABLE fl1 AS
SELECT f.*,
       (SELECT u FROM rnd WHERE i = 1000 + f.flight_id * 12) AS u_status,
       (SELECT u FROM rnd WHERE i = 1000 + f.flight_id * 12 + 1) AS u_bucket,
       (SELECT u FROM rnd WHERE i = 1000 + f.flight_id * 12 + 2) AS u_delay,
       (SELECT u FROM rnd WHERE i = 1000 + f.flight_id * 12 + 3) AS u_taxi_out,
       (SELECT u FROM rnd WHERE i = 1000 + f.flight_id * 12 + 4) AS u_air,
       (SELECT u FROM rnd WHERE i = 1000 + f.flight_id * 12 + 5) AS u_taxi_in,
       (SELECT u FROM rnd WHERE i = 1000 + f.flight_id * 12 + 6) AS u_plane,
       (SELECT u FROM rnd WHERE i = 1000 + f.flight_id * 12 + 7) AS u_load,
       (SELECT u FROM rnd WHERE i = 1000 + f.flight_id * 12 + 8) AS u_cargo,
       (SELECT u FROM rnd WHERE i = 1000 + f.flight_id * 12 + 9) AS u_gate,
       (SELECT u FROM rnd WHERE i = 1000 + f.flight_id * 12 + 10) AS u_change,
       (SELECT u FROM rnd WHERE i = 1000 + f.flight_id * 12 + 11) AS u_reason
FROM fl0 f;

CREATE TEMP TABLE fl2 AS
SELECT f.*,
       CASE WHEN f.u_status < 0.008 + 0.02 * f.winter + 0.40 * f.storm THEN 'Cancelled'
            WHEN f.u_status > 0.9965 AND alt.alternate IS NOT NULL THEN 'Diverted'
            ELSE 'Landed' END AS status,
       CASE WHEN f.u_bucket + 0.10 * f.winter + 0.35 * f.storm < 0.62 THEN -8 + CAST(f.u_delay * 13 AS INTEGER)
            WHEN f.u_bucket + 0.10 * f.winter + 0.35 * f.storm < 0.84 THEN 5 + CAST(f.u_delay * 25 AS INTEGER)
            WHEN f.u_bucket + 0.10 * f.winter + 0.35 * f.storm < 0.975 THEN 30 + CAST(f.u_delay * f.u_delay * 60 AS INTEGER)
            ELSE 90 + CAST(f.u_delay * f.u_delay * 240 AS INTEGER) END AS dep_delay,
       16 + 6 * tor.big_hub AS taxi_out_nom,
       16 + 6 * tor.big_hub - 6 + CAST(f.u_taxi_out * 14 AS INTEGER) + 12 * f.storm AS taxi_out,
       4 + CAST(f.u_taxi_in * 10 AS INTEGER) AS taxi_in,
       CAST(round((f.sched_block - 16 - 6 * tor.big_hub - 8) * (0.90 + 0.12 * f.u_air)) AS INTEGER) AS air_time,
       fi.tail_number, a.seats, a.year_built, m.burn_kg_per_km, a.is_widebody,
       tor.n AS n_dep_terms, tdr.n AS n_arr_terms, alt.alternate
FROM fl1 f
JOIN terminals tor ON tor.airport_code = f.origin
JOIN terminals tdr ON tdr.airport_code = f.destination
LEFT JOIN alternates alt ON alt.airport_code = f.destination
JOIN fleet_size fs ON fs.airline_code = f.airline_code AND fs.is_widebody = f.need_wide
JOIN fleet_idx fi ON fi.airline_code = f.airline_code AND fi.is_widebody = f.need_wide
                 AND fi.k = 1 + CAST(f.u_plane * fs.n AS INTEGER)
JOIN aircraft a ON a.tail_number = fi.tail_number
JOIN models m ON m.model = a.model;

INSERT INTO flights (flight_id, route_id, flight_date, day_of_week, tail_number, scheduled_departure, scheduled_arrival,
  actual_departure, actual_arrival, departure_delay_min, arrival_delay_min, flight_status, cancellation_reason, diverted_to,
  departure_terminal, departure_gate, arrival_terminal, arrival_gate, gate_changed, taxi_out_min, taxi_in_min,
  wheels_off, wheels_on, scheduled_block_min, actual_block_min, air_time_min, distance_km, seats_offered,
  passengers_boarded, cargo_kg, fuel_burned_kg, cockpit_crew, cabin_crew, meal_service, wifi_available, is_codeshare)
SELECT f.flight_id, f.route_id, f.flight_date, f.dow, f.tail_number, f.sched_dep,
       strftime('%Y-%m-%d %H:%M', f.sched_dep, '+' || f.sched_block || ' minutes'),
       CASE WHEN f.status <> 'Cancelled' THEN strftime('%Y-%m-%d %H:%M', f.sched_dep, f.dep_delay || ' minutes') END,
       CASE WHEN f.status = 'Landed' THEN strftime('%Y-%m-%d %H:%M', f.sched_dep,
            (f.dep_delay + f.taxi_out + f.air_time + f.taxi_in) || ' minutes') END,
       CASE WHEN f.status <> 'Cancelled' THEN f.dep_delay END,
       CASE WHEN f.status = 'Landed' THEN f.dep_delay + f.taxi_out + f.air_time + f.taxi_in - f.sched_block END,
       f.status,
       CASE WHEN f.status = 'Cancelled' THEN
            CASE WHEN f.storm OR f.u_reason < 0.25 + 0.4 * f.winter THEN 'Weather'
                 WHEN f.u_reason < 0.80 THEN 'Carrier'
                 WHEN f.u_reason < 0.97 THEN 'National Air System' ELSE 'Security' END END,
       CASE WHEN f.status = 'Diverted' THEN f.alternate END,
       'T' || (1 + (unicode(f.airline_code) * 7 + unicode(substr(f.airline_code, 2)) * 3) % f.n_dep_terms),
       substr('ABCDEFGHJK', 1 + (unicode(f.airline_code) * 7 + unicode(substr(f.airline_code, 2)) * 3) % f.n_dep_terms, 1)
         || CAST(1 + CAST(f.u_gate * 997 AS INTEGER) % 38 AS TEXT),
       'T' || (1 + (unicode(f.airline_code) * 7 + unicode(substr(f.airline_code, 2)) * 3) % f.n_arr_terms),
       CASE WHEN f.status = 'Landed' THEN
            substr('ABCDEFGHJK', 1 + (unicode(f.airline_code) * 7 + unicode(substr(f.airline_code, 2)) * 3) % f.n_arr_terms, 1)
            || CAST(1 + CAST(f.u_gate * 7919 AS INTEGER) % 38 AS TEXT) END,
       CASE WHEN f.u_change < 0.07 THEN 1 ELSE 0 END,
       CASE WHEN f.status <> 'Cancelled' THEN f.taxi_out END,
       CASE WHEN f.status = 'Landed' THEN f.taxi_in END,
       CASE WHEN f.status <> 'Cancelled' THEN strftime('%Y-%m-%d %H:%M', f.sched_dep, (f.dep_delay + f.taxi_out) || ' minutes') END,
       CASE WHEN f.status = 'Landed' THEN strftime('%Y-%m-%d %H:%M', f.sched_dep, (f.dep_delay + f.taxi_out + f.air_time) || ' minutes') END,
       f.sched_block,
       CASE WHEN f.status = 'Landed' THEN f.taxi_out + f.air_time + f.taxi_in END,
       CASE WHEN f.status = 'Landed' THEN f.air_time END,
       f.distance_km, f.seats,
       CASE WHEN f.status <> 'Cancelled' THEN
            CAST(round(f.seats * MIN(1.0, 0.58 + 0.38 * f.u_load + CASE WHEN f.dow IN (5, 7) THEN 0.06 ELSE 0 END)) AS INTEGER) END,
       CASE WHEN f.status <> 'Cancelled' THEN
            CASE WHEN f.is_widebody = 1 THEN 6000 + CAST(f.u_cargo * 16000 AS INTEGER) ELSE 200 + CAST(f.u_cargo * 2300 AS INTEGER) END END,
       CASE WHEN f.status <> 'Cancelled' THEN CAST(round(f.distance_km * f.burn_kg_per_km * (0.96 + 0.10 * f.u_air) + 12 * f.taxi_out) AS INTEGER) END,
       CASE WHEN f.sched_block > 720 THEN 4 WHEN f.sched_block > 480 THEN 3 ELSE 2 END,
       (f.seats + 49) / 50 + CASE WHEN f.is_widebody = 1 THEN 4 ELSE 0 END,
       CASE WHEN f.airline_code = 'WN' OR f.sched_block < 240 THEN CASE WHEN f.sched_block < 100 THEN 'None' ELSE 'Snack' END
            WHEN f.sched_block < 600 THEN 'Meal' ELSE 'Two meals' END,
       CASE WHEN f.year_built >= 2012 OR f.airline_code IN ('DL', 'B6', 'WN') THEN 1 ELSE 0 END,
       CASE WHEN f.airline_code IN ('AA', 'DL', 'UA', 'BA', 'LH', 'AF') AND f.route_id % 3 = 0 THEN 1 ELSE 0 END
FROM fl2 f;

-- Delay attribution: every departure delayed by 15 minutes or more gets one or two causes whose
-- minutes add up to the departure delay -------------------------------------------------------------
CREATE TEMP TABLE cause_weight (cause TEXT, delay_code TEXT, lo REAL, hi REAL);
INSERT INTO cause_weight VALUES
 ('Late aircraft','93',0.00,0.34),('Technical','41',0.34,0.50),('Crew','63',0.50,0.60),
 ('Passenger handling','15',0.60,0.70),('Air traffic control','81',0.70,0.88),('Weather','71',0.88,0.98),
 ('Security','85',0.98,1.00);

CREATE TEMP TABLE delay_stage AS
SELECT fl.flight_id, fl.departure_delay_min AS total, f2.storm, f2.winter,
       (SELECT u FROM rnd WHERE i = 150000 + fl.flight_id * 4) AS u_cause,
       (SELECT u FROM rnd WHERE i = 150000 + fl.flight_id * 4 + 1) AS u_split,
       (SELECT u FROM rnd WHERE i = 150000 + fl.flight_id * 4 + 2) AS u_cause2,
       (SELECT u FROM rnd WHERE i = 150000 + fl.flight_id * 4 + 3) AS u_share
FROM flights fl JOIN fl2 f2 ON f2.flight_id = fl.flight_id
WHERE fl.departure_delay_min >= 15;

CREATE TEMP TABLE delay_split AS
SELECT ds.*, c1.cause AS cause1, c1.delay_code AS code1, c2.cause AS cause2, c2.delay_code AS code2,
       (ds.storm OR ds.u_split < 0.35 * ds.winter) AS weather_forced,
       (ds.total >= 45 AND ds.u_split > 0.55 AND NOT ds.storm) AS is_split,
       CAST(ds.total * (0.15 + 0.3 * ds.u_share) AS INTEGER) AS second_minutes
FROM delay_stage ds
JOIN cause_weight c1 ON ds.u_cause >= c1.lo AND ds.u_cause < c1.hi
JOIN cause_weight c2 ON ds.u_cause2 >= c2.lo AND ds.u_cause2 < c2.hi;

CREATE TEMP TABLE delay_parts AS
SELECT flight_id, 1 AS part,
       CASE WHEN weather_forced THEN 'Weather' ELSE cause1 END AS cause,
       CASE WHEN weather_forced THEN '71' ELSE code1 END AS delay_code,
       CASE WHEN is_split THEN total - second_minutes ELSE total END AS minutes
FROM delay_split
UNION ALL
SELECT flight_id, 2,
       CASE WHEN cause2 <> cause1 THEN cause2 WHEN cause1 <> 'Late aircraft' THEN 'Late aircraft' ELSE 'Air traffic control' END,
       CASE WHEN cause2 <> cause1 THEN code2 WHEN cause1 <> 'Late aircraft' THEN '93' ELSE '81' END,
       second_minutes
FROM delay_split WHERE is_split;

INSERT INTO delays (delay_id, flight_id, cause, delay_code, minutes)
SELECT ROW_NUMBER() OVER (ORDER BY flight_id, part), flight_id, cause, delay_code, minutes FROM delay_parts;

-- Passengers -------------------------------------------------------------------------------------
CREATE TEMP TABLE first_names (k INTEGER PRIMARY KEY, name TEXT NOT NULL, gender TEXT NOT NULL);
INSERT INTO first_names (name, gender) VALUES
 ('James','M'),('Mary','F'),('Robert','M'),('Patricia','F'),('John','M'),('Jennifer','F'),('Michael','M'),
 ('Linda','F'),('David','M'),('Elizabeth','F'),('William','M'),('Barbara','F'),('Richard','M'),('Susan','F'),
 ('Thomas','M'),('Jessica','F'),('Daniel','M'),('Sarah','F'),('Matthew','M'),('Emily','F'),('Oliver','M'),
 ('Amelia','F'),('George','M'),('Isla','F'),('Harry','M'),('Charlotte','F'),('Lukas','M'),('Hannah','F'),
 ('Felix','M'),('Sophie','F'),('Louis','M'),('Camille','F'),('Hugo','M'),('Léa','F'),('Pablo','M'),
 ('Lucía','F'),('Daan','M'),('Emma','F'),('Ahmed','M'),('Fatima','F'),('Mohammed','M'),('Aisha','F'),
 ('Haruto','M'),('Yui','F'),('Kenji','M'),('Sakura','F'),('Wei','M'),('Xin','F'),('Arjun','M'),
 ('Priya','F'),('Rohan','M'),('Ananya','F'),('Carlos','M'),('Sofía','F'),('Diego','M'),('Valentina','F'),
 ('Ethan','M'),('Chloe','F'),('Noah','M'),('Olivia','F'),('Liam','M'),('Ava','F'),('Ryan','M'),('Grace','F');

CREATE TEMP TABLE last_names (k INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO last_names (name) VALUES
 ('Smith'),('Johnson'),('Williams'),('Brown'),('Jones'),('Garcia'),('Miller'),('Davis'),('Rodriguez'),
 ('Martinez'),('Wilson'),('Anderson'),('Taylor'),('Thomas'),('Moore'),('Jackson'),('Martin'),('Lee'),
 ('Thompson'),('White'),('Harris'),('Clark'),('Lewis'),('Walker'),('Young'),('Allen'),('King'),('Wright'),
 ('Evans'),('Hughes'),('Roberts'),('Patel'),('Khan'),('Murphy'),('O''Connor'),('Müller'),('Schmidt'),
 ('Schneider'),('Fischer'),('Weber'),('Dubois'),('Lefebvre'),('Moreau'),('Laurent'),('Fernández'),('López'),
 ('Sánchez'),('Pérez'),('de Vries'),('Jansen'),('Bakker'),('Al Mansoori'),('Al Hashimi'),('Haddad'),
 ('Sato'),('Suzuki'),('Takahashi'),('Tanaka'),('Wang'),('Li'),('Zhang'),('Chen'),('Sharma'),('Gupta'),
 ('Singh'),('Tan'),('Lim'),('Ng'),('Hernández'),('González'),('Nguyen'),('Kim');

CREATE TEMP TABLE nationality_weight (nationality TEXT, lo REAL, hi REAL);
INSERT INTO nationality_weight VALUES
 ('USA',0.00,0.52),('United Kingdom',0.52,0.61),('Germany',0.61,0.67),('France',0.67,0.72),
 ('Canada',0.72,0.76),('Mexico',0.76,0.79),('India',0.79,0.83),('Japan',0.83,0.86),('China',0.86,0.89),
 ('United Arab Emirates',0.89,0.91),('Spain',0.91,0.93),('Netherlands',0.93,0.95),('Singapore',0.95,0.97),
 ('Brazil',0.97,0.99),('Australia',0.99,1.00);

CREATE TEMP TABLE loyalty_weight (airline_code TEXT, lo REAL, hi REAL);
INSERT INTO loyalty_weight VALUES
 ('AA',0.00,0.18),('DL',0.18,0.37),('UA',0.37,0.54),('WN',0.54,0.64),('B6',0.64,0.71),
 ('BA',0.71,0.80),('LH',0.80,0.87),('AF',0.87,0.93),('EK',0.93,1.00);

CREATE TEMP TABLE pax_stage AS
SELECT s.n AS passenger_id, fn.name AS first_name, ln.name AS last_name,
       CASE WHEN r3.u < 0.02 THEN NULL ELSE fn.gender END AS gender,
       CASE WHEN r4.u < 0.03 THEN NULL
            ELSE date('1942-01-01', '+' || CAST(26000 * (0.15 + 0.85 * r4.u * (0.6 + 0.4 * r5.u)) AS INTEGER) || ' days') END AS birth_date,
       nw.nationality, r6.u AS u_email, r7.u AS u_member, r8.u AS u_tier, r9.u AS u_since, r10.u AS u_airline,
       ROW_NUMBER() OVER (PARTITION BY fn.name, ln.name ORDER BY s.n) AS name_rn
FROM seq s
JOIN rnd r1 ON r1.i = 110000 + s.n * 10
JOIN rnd r2 ON r2.i = 110000 + s.n * 10 + 1
JOIN rnd r3 ON r3.i = 110000 + s.n * 10 + 2
JOIN rnd r4 ON r4.i = 110000 + s.n * 10 + 3
JOIN rnd r5 ON r5.i = 110000 + s.n * 10 + 4
JOIN rnd r6 ON r6.i = 110000 + s.n * 10 + 5
JOIN rnd r7 ON r7.i = 110000 + s.n * 10 + 6
JOIN rnd r8 ON r8.i = 110000 + s.n * 10 + 7
JOIN rnd r9 ON r9.i = 110000 + s.n * 10 + 8
JOIN rnd r10 ON r10.i = 110000 + s.n * 10 + 9
JOIN first_names fn ON fn.k = 1 + CAST(r1.u * (SELECT COUNT(*) FROM first_names) AS INTEGER)
JOIN last_names ln ON ln.k = 1 + CAST(r2.u * (SELECT COUNT(*) FROM last_names) AS INTEGER)
JOIN nationality_weight nw ON r5.u * 0.9999 >= nw.lo AND r5.u * 0.9999 < nw.hi
WHERE s.n <= 1500;

-- Low passenger ids are the frequent travellers (bookings favour them), so they hold the higher tiers.
INSERT INTO passengers (passenger_id, first_name, last_name, gender, birth_date, nationality, email,
                        loyalty_tier, loyalty_airline, member_since)
SELECT p.passenger_id, p.first_name, p.last_name, p.gender, p.birth_date, p.nationality,
       CASE WHEN p.u_email < 0.08 THEN NULL
            ELSE lower(replace(replace(replace(p.first_name, 'é', 'e'), 'í', 'i'), ' ', '')) || '.'
                 || lower(replace(replace(replace(replace(replace(replace(p.last_name, ' ', ''), '''', ''), 'ü', 'ue'), 'á', 'a'), 'é', 'e'), 'ó', 'o'))
                 || CASE WHEN p.name_rn > 1 THEN CAST(p.name_rn AS TEXT) ELSE '' END
                 || substr('@gmail.com  @outlook.com@yahoo.com  @icloud.com ', 1 + 12 * CAST(p.u_email * 37 % 4 AS INTEGER), 12) END,
       CASE WHEN p.u_member < 0.58 - 0.25 * p.passenger_id / 1500.0 THEN
            CASE WHEN p.u_tier < 0.06 + 0.25 * (1 - p.passenger_id / 1500.0) THEN 'Platinum'
                 WHEN p.u_tier < 0.18 + 0.30 * (1 - p.passenger_id / 1500.0) THEN 'Gold'
                 WHEN p.u_tier < 0.45 + 0.20 * (1 - p.passenger_id / 1500.0) THEN 'Silver' ELSE 'Blue' END END,
       CASE WHEN p.u_member < 0.58 - 0.25 * p.passenger_id / 1500.0 THEN lw.airline_code END,
       CASE WHEN p.u_member < 0.58 - 0.25 * p.passenger_id / 1500.0 THEN
            date('2004-01-01', '+' || CAST(p.u_since * 7300 AS INTEGER) || ' days') END
FROM pax_stage p
JOIN loyalty_weight lw ON p.u_airline >= lw.lo AND p.u_airline < lw.hi;
UPDATE passengers SET email = trim(email) WHERE email IS NOT NULL;

-- Bookings: 30% are made by the 150 frequent travellers (the lowest passenger ids) ----------------------
CREATE TEMP TABLE bk_stage AS
SELECT s.n AS booking_id,
       CASE WHEN r1.u < 0.3 THEN 1 + CAST(r1.u / 0.3 * 150 AS INTEGER)
            ELSE 1 + CAST((r1.u - 0.3) / 0.7 * 1500 AS INTEGER) END AS passenger_id,
       1 + CAST(r2.u * (SELECT COUNT(*) FROM flights) AS INTEGER) AS flight_id,
       r3.u AS u_lead, r4.u AS u_class, r5.u AS u_price, r6.u AS u_seat, r7.u AS u_bags, r8.u AS u_status
FROM seq s
JOIN rnd r1 ON r1.i = 126000 + s.n * 8
JOIN rnd r2 ON r2.i = 126000 + s.n * 8 + 1
JOIN rnd r3 ON r3.i = 126000 + s.n * 8 + 2
JOIN rnd r4 ON r4.i = 126000 + s.n * 8 + 3
JOIN rnd r5 ON r5.i = 126000 + s.n * 8 + 4
JOIN rnd r6 ON r6.i = 126000 + s.n * 8 + 5
JOIN rnd r7 ON r7.i = 126000 + s.n * 8 + 6
JOIN rnd r8 ON r8.i = 126000 + s.n * 8 + 7
WHERE s.n <= 9000;

CREATE TEMP TABLE bk_full AS
SELECT b.*, f.scheduled_departure, f.flight_status, f.distance_km, r.airline_code, a.is_widebody,
       CAST(1 + 180 * b.u_lead * b.u_lead AS INTEGER) AS lead_days,
       CASE WHEN r.airline_code = 'WN' THEN 'Economy'
            WHEN a.is_widebody = 1 THEN
              CASE WHEN b.u_class < 0.72 THEN 'Economy' WHEN b.u_class < 0.84 THEN 'Premium Economy'
                   WHEN b.u_class < 0.97 OR r.airline_code NOT IN ('EK', 'BA', 'AF') THEN 'Business' ELSE 'First' END
            ELSE CASE WHEN b.u_class < 0.86 THEN 'Economy' ELSE 'Business' END END AS fare_class
FROM bk_stage b
JOIN flights f ON f.flight_id = b.flight_id
JOIN routes r ON r.route_id = f.route_id
JOIN aircraft a ON a.tail_number = f.tail_number;

-- The booking reference is the booking id pushed through a bijection of [0, 2^30) (odd multipliers and
-- xor-shifts; a ^ b is written (a | b) - (a & b)), spelled in a 32-letter alphabet: references look
-- random yet never collide.
CREATE TEMP TABLE bk_ref AS
WITH m1 AS (SELECT booking_id, (booking_id * 1103515245 + 12345) % 1073741824 AS x FROM bk_stage),
     m2 AS (SELECT booking_id, (x | (x >> 15)) - (x & (x >> 15)) AS x FROM m1),
     m3 AS (SELECT booking_id, (x * 2654435761) % 1073741824 AS x FROM m2),
     m4 AS (SELECT booking_id, (x | (x >> 13)) - (x & (x >> 13)) AS x FROM m3)
SELECT booking_id, x FROM m4;

INSERT INTO bookings (booking_id, booking_ref, passenger_id, flight_id, booked_at, fare_class, price_usd, seat,
                      checked_bags, booking_status, channel)
SELECT b.booking_id,
       substr('ABCDEFGHJKLMNPQRSTUVWXYZ23456789', 1 + (br.x >> 25) % 32, 1)
         || substr('ABCDEFGHJKLMNPQRSTUVWXYZ23456789', 1 + (br.x >> 20) % 32, 1)
         || substr('ABCDEFGHJKLMNPQRSTUVWXYZ23456789', 1 + (br.x >> 15) % 32, 1)
         || substr('ABCDEFGHJKLMNPQRSTUVWXYZ23456789', 1 + (br.x >> 10) % 32, 1)
         || substr('ABCDEFGHJKLMNPQRSTUVWXYZ23456789', 1 + (br.x >> 5) % 32, 1)
         || substr('ABCDEFGHJKLMNPQRSTUVWXYZ23456789', 1 + br.x % 32, 1),
       b.passenger_id, b.flight_id,
       strftime('%Y-%m-%d %H:%M', b.scheduled_departure, '-' || b.lead_days || ' days',
                '-' || CAST(b.u_seat * 1440 AS INTEGER) || ' minutes'),
       b.fare_class,
       round((CASE b.fare_class WHEN 'Economy' THEN 45 + 0.085 * b.distance_km WHEN 'Premium Economy' THEN 90 + 0.16 * b.distance_km
                               WHEN 'Business' THEN 150 + 0.36 * b.distance_km ELSE 300 + 0.62 * b.distance_km END)
             * CASE WHEN b.lead_days < 7 THEN 1.35 WHEN b.lead_days > 60 THEN 0.85 ELSE 1.0 END
             * (0.85 + 0.35 * b.u_price), 2),
       CASE WHEN b.flight_status = 'Cancelled' OR b.u_status < 0.05 THEN NULL
            ELSE CAST(CASE b.fare_class
                   WHEN 'First' THEN 1 + CAST(b.u_seat * 2 AS INTEGER)
                   WHEN 'Business' THEN CASE WHEN b.is_widebody = 1 THEN 3 + CAST(b.u_seat * 8 AS INTEGER) ELSE 1 + CAST(b.u_seat * 5 AS INTEGER) END
                   WHEN 'Premium Economy' THEN 12 + CAST(b.u_seat * 5 AS INTEGER)
                   ELSE CASE WHEN b.is_widebody = 1 THEN 20 + CAST(b.u_seat * 38 AS INTEGER) ELSE 7 + CAST(b.u_seat * 26 AS INTEGER) END
                 END AS TEXT)
                 || substr(CASE WHEN b.is_widebody = 1 THEN 'ABCDEFGHJK' ELSE 'ABCDEF' END,
                           1 + CAST(b.u_seat * 7919 AS INTEGER) % CASE WHEN b.is_widebody = 1 THEN 10 ELSE 6 END, 1) END,
       CASE WHEN b.u_bags < 0.42 - 0.2 * b.is_widebody THEN 0 WHEN b.u_bags < 0.86 THEN 1 ELSE 2 END,
       CASE WHEN b.flight_status = 'Cancelled' THEN 'Refunded' WHEN b.u_status < 0.05 THEN 'Cancelled'
            WHEN b.u_status < 0.08 THEN 'No-show' ELSE 'Flown' END,
       CASE WHEN b.u_lead * 1000 % 100 < 47 THEN 'Website' WHEN b.u_lead * 1000 % 100 < 75 THEN 'Mobile app'
            WHEN b.u_lead * 1000 % 100 < 90 THEN 'Travel agent' ELSE 'Call center' END
FROM bk_full b JOIN bk_ref br ON br.booking_id = b.booking_id;
