-- Deterministic data for the university database.
-- Every "random" draw comes from a Park-Miller LCG (x * 48271 mod 2^31-1) materialised in a TEMP table,
-- so rebuilding always yields byte-identical data. TEMP helper tables disappear with the connection.

CREATE TEMP TABLE rnd (i INTEGER PRIMARY KEY, u REAL NOT NULL);
WITH RECURSIVE g(i, x) AS (
  SELECT 1, 20240917
  UNION ALL SELECT i + 1, (x * 48271) % 2147483647 FROM g WHERE i < 60000
)
INSERT INTO rnd SELECT i, x / 2147483647.0 FROM g;

CREATE TEMP TABLE seq (n INTEGER PRIMARY KEY);
WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < 2000)
INSERT INTO seq SELECT n FROM g;

-- Name pools -----------------------------------------------------------------------------------
CREATE TEMP TABLE first_names (k INTEGER PRIMARY KEY, name TEXT NOT NULL, gender TEXT NOT NULL);
INSERT INTO first_names (name, gender) VALUES
 ('James','M'),('Mary','F'),('Robert','M'),('Patricia','F'),('John','M'),('Jennifer','F'),('Michael','M'),
 ('Linda','F'),('David','M'),('Elizabeth','F'),('William','M'),('Barbara','F'),('Richard','M'),('Susan','F'),
 ('Joseph','M'),('Jessica','F'),('Thomas','M'),('Sarah','F'),('Daniel','M'),('Karen','F'),('Matthew','M'),
 ('Emily','F'),('Anthony','M'),('Olivia','F'),('Mark','M'),('Sophia','F'),('Andrew','M'),('Emma','F'),
 ('Joshua','M'),('Ava','F'),('Kevin','M'),('Isabella','F'),('Brian','M'),('Mia','F'),('Ethan','M'),
 ('Charlotte','F'),('Noah','M'),('Amelia','F'),('Liam','M'),('Harper','F'),('Lucas','M'),('Evelyn','F'),
 ('Mateo','M'),('Camila','F'),('Diego','M'),('Valentina','F'),('Wei','M'),('Mei','F'),('Hiroshi','M'),
 ('Yuki','F'),('Arjun','M'),('Priya','F'),('Rahul','M'),('Ananya','F'),('Omar','M'),('Fatima','F'),
 ('Chinedu','M'),('Amara','F'),('Ji-woo','M'),('Seo-yeon','F'),('Lukas','M'),('Lena','F'),('Pedro','M'),
 ('Beatriz','F'),('Minh','M'),('Linh','F'),('Samuel','M'),('Grace','F'),('Nathan','M'),('Chloe','F');

CREATE TEMP TABLE last_names (k INTEGER PRIMARY KEY, name TEXT NOT NULL);
INSERT INTO last_names (name) VALUES
 ('Smith'),('Johnson'),('Williams'),('Brown'),('Jones'),('Garcia'),('Miller'),('Davis'),('Rodriguez'),
 ('Martinez'),('Hernandez'),('Lopez'),('Gonzalez'),('Wilson'),('Anderson'),('Thomas'),('Taylor'),('Moore'),
 ('Jackson'),('Martin'),('Lee'),('Perez'),('Thompson'),('White'),('Harris'),('Sanchez'),('Clark'),
 ('Ramirez'),('Lewis'),('Robinson'),('Walker'),('Young'),('Allen'),('King'),('Wright'),('Scott'),
 ('Torres'),('Nguyen'),('Hill'),('Flores'),('Green'),('Adams'),('Nelson'),('Baker'),('Hall'),('Rivera'),
 ('Campbell'),('Mitchell'),('Carter'),('Roberts'),('Chen'),('Wang'),('Li'),('Zhang'),('Kim'),('Park'),
 ('Patel'),('Shah'),('Singh'),('Tanaka'),('Sato'),('Müller'),('Schmidt'),('Okafor'),('Adeyemi'),
 ('Silva'),('Santos'),('Tran'),('Pham'),('O''Brien'),('Murphy'),('Kelly'),('Sullivan'),('Cohen'),
 ('Rossi'),('Novak'),('Kowalski'),('Ivanova'),('Haddad'),('Khan');

-- Departments ------------------------------------------------------------------------------------
INSERT INTO departments (dept_id, dept_code, dept_name, faculty, building, founded_year, annual_budget) VALUES
 (1,'CS','Computer Science','Engineering','Turing Hall',1968,2450000),
 (2,'MATH','Mathematics','Science','Noether Hall',1902,1320000),
 (3,'PHYS','Physics','Science','Curie Building',1905,1810000),
 (4,'CHEM','Chemistry','Science','Curie Building',1911,1650000),
 (5,'BIO','Biology','Science','Darwin Center',1921,1990000),
 (6,'ECON','Economics','Social Sciences','Keynes Hall',1934,1100000),
 (7,'HIST','History','Humanities','Gibbon House',1899,640000),
 (8,'ENG','English Literature','Humanities','Gibbon House',1899,580000),
 (9,'PSY','Psychology','Social Sciences','James Hall',1950,970000),
 (10,'EE','Electrical Engineering','Engineering','Tesla Hall',1958,2100000);

-- Instructors: department by weighted draw, rank-dependent hire year and salary --------------------
-- Department head-counts are fixed quotas; which instructor lands where is a random permutation.
CREATE TEMP TABLE dept_quota (dept_id INTEGER, first_pos INTEGER, last_pos INTEGER);
INSERT INTO dept_quota VALUES
 (1,1,15),(2,16,26),(3,27,34),(4,35,42),(5,43,53),(6,54,62),(7,63,68),(8,69,74),(9,75,83),(10,84,92);

CREATE TEMP TABLE inst_stage AS
SELECT s.n AS instructor_id,
       fn.name AS first_name, fn.gender AS gender, ln.name AS last_name,
       CASE WHEN r3.u < 0.30 THEN 'Professor' WHEN r3.u < 0.55 THEN 'Associate Professor'
            WHEN r3.u < 0.80 THEN 'Assistant Professor' ELSE 'Lecturer' END AS academic_rank,
       r4.u AS u_year, r5.u AS u_day, r6.u AS u_pay, r7.u AS u_phone, r8.u AS u_dept
FROM seq s
JOIN rnd r1 ON r1.i = 1000 + s.n * 8
JOIN rnd r2 ON r2.i = 1000 + s.n * 8 + 1
JOIN rnd r3 ON r3.i = 1000 + s.n * 8 + 2
JOIN rnd r4 ON r4.i = 1000 + s.n * 8 + 3
JOIN rnd r5 ON r5.i = 1000 + s.n * 8 + 4
JOIN rnd r6 ON r6.i = 1000 + s.n * 8 + 5
JOIN rnd r7 ON r7.i = 1000 + s.n * 8 + 6
JOIN rnd r8 ON r8.i = 1000 + s.n * 8 + 7
JOIN first_names fn ON fn.k = 1 + CAST(r1.u * (SELECT COUNT(*) FROM first_names) AS INTEGER)
JOIN last_names ln ON ln.k = 1 + CAST(r2.u * (SELECT COUNT(*) FROM last_names) AS INTEGER)
WHERE s.n <= 92;

CREATE TEMP TABLE inst_dept AS
SELECT p.instructor_id, q.dept_id
FROM (SELECT instructor_id, ROW_NUMBER() OVER (ORDER BY u_dept) AS pos FROM inst_stage) p
JOIN dept_quota q ON p.pos BETWEEN q.first_pos AND q.last_pos;

INSERT INTO instructors (instructor_id, first_name, last_name, dept_id, academic_rank, hire_date, salary, email, office_phone)
SELECT instructor_id, first_name, last_name, dept_id, academic_rank,
       date(CAST(CASE academic_rank
                   WHEN 'Professor' THEN 1986 + CAST(u_year * 26 AS INTEGER)
                   WHEN 'Associate Professor' THEN 2004 + CAST(u_year * 15 AS INTEGER)
                   WHEN 'Assistant Professor' THEN 2016 + CAST(u_year * 8 AS INTEGER)
                   ELSE 2009 + CAST(u_year * 15 AS INTEGER) END AS TEXT) || '-07-01',
            '+' || CAST(u_day * 75 AS INTEGER) || ' days'),
       100 * round(CASE academic_rank WHEN 'Professor' THEN 168000 WHEN 'Associate Professor' THEN 129000
                                WHEN 'Assistant Professor' THEN 106000 ELSE 71000 END
             * CASE WHEN dept_id IN (1, 10, 6) THEN 1.16 WHEN dept_id IN (7, 8) THEN 0.86 ELSE 1.0 END
             * (0.90 + 0.22 * u_pay) / 100.0),
       lower(replace(first_name, '-', '') || '.' || replace(replace(last_name, '''', ''), 'ü', 'ue'))
         || CASE WHEN rn > 1 THEN CAST(rn AS TEXT) ELSE '' END || '@ashford.edu',
       CASE WHEN academic_rank = 'Lecturer' AND u_phone < 0.5 THEN NULL
            ELSE '(617) 555-' || printf('%04d', 1000 + instructor_id * 37) END
FROM (SELECT st.*, d.dept_id, ROW_NUMBER() OVER (PARTITION BY st.first_name, st.last_name ORDER BY st.instructor_id) AS rn
      FROM inst_stage st JOIN inst_dept d ON d.instructor_id = st.instructor_id);

-- The chair is the longest-serving full professor of the department (vacant when there is none).
UPDATE departments SET chair_id = (
  SELECT i.instructor_id FROM instructors i
  WHERE i.dept_id = departments.dept_id AND i.academic_rank = 'Professor'
  ORDER BY i.hire_date, i.instructor_id LIMIT 1);

-- Classrooms ------------------------------------------------------------------------------------
INSERT INTO classrooms (room_id, building, room_number, capacity, room_type) VALUES
 (1,'Turing Hall','101',220,'Lecture hall'),(2,'Turing Hall','205',45,'Seminar room'),
 (3,'Turing Hall','B12',36,'Computer lab'),(4,'Noether Hall','110',180,'Lecture hall'),
 (5,'Noether Hall','210',40,'Seminar room'),(6,'Noether Hall','215',32,'Seminar room'),
 (7,'Curie Building','G01',250,'Lecture hall'),(8,'Curie Building','120',28,'Teaching lab'),
 (9,'Curie Building','122',28,'Teaching lab'),(10,'Curie Building','305',48,'Seminar room'),
 (11,'Darwin Center','100',160,'Lecture hall'),(12,'Darwin Center','140',30,'Teaching lab'),
 (13,'Darwin Center','230',42,'Seminar room'),(14,'Keynes Hall','001',200,'Lecture hall'),
 (15,'Keynes Hall','112',55,'Seminar room'),(16,'Gibbon House','12',35,'Seminar room'),
 (17,'Gibbon House','20',120,'Lecture hall'),(18,'James Hall','150',140,'Lecture hall'),
 (19,'James Hall','204',38,'Seminar room'),(20,'Tesla Hall','100',150,'Lecture hall'),
 (21,'Tesla Hall','L3',30,'Teaching lab'),(22,'Tesla Hall','240',44,'Seminar room'),
 (23,'Library Annex','2A',24,'Seminar room'),(24,'Library Annex','3C',60,'Seminar room');

-- Course catalogue -------------------------------------------------------------------------------
INSERT INTO courses (course_id, course_code, title, dept_id, credits, level, has_lab) VALUES
 (1,'CS 101','Introduction to Programming',1,4,100,1),(2,'CS 150','Discrete Structures',1,3,100,0),
 (3,'CS 201','Data Structures',1,4,200,0),(4,'CS 220','Computer Organization',1,3,200,0),
 (5,'CS 310','Algorithms',1,3,300,0),(6,'CS 330','Database Systems',1,3,300,0),
 (7,'CS 345','Operating Systems',1,4,300,1),(8,'CS 410','Machine Learning',1,3,400,0),
 (9,'CS 420','Computer Networks',1,3,400,0),(10,'CS 460','Compilers',1,4,400,0),
 (11,'MATH 101','Calculus I',2,4,100,0),(12,'MATH 102','Calculus II',2,4,100,0),
 (13,'MATH 201','Linear Algebra',2,3,200,0),(14,'MATH 210','Multivariable Calculus',2,4,200,0),
 (15,'MATH 250','Probability',2,3,200,0),(16,'MATH 305','Real Analysis',2,3,300,0),
 (17,'MATH 320','Abstract Algebra',2,3,300,0),(18,'MATH 350','Statistical Inference',2,3,300,0),
 (19,'MATH 410','Numerical Methods',2,3,400,0),
 (20,'PHYS 101','Mechanics',3,4,100,1),(21,'PHYS 102','Electricity and Magnetism',3,4,100,1),
 (22,'PHYS 201','Waves and Optics',3,3,200,0),(23,'PHYS 301','Quantum Mechanics I',3,3,300,0),
 (24,'PHYS 310','Thermodynamics and Statistical Physics',3,3,300,0),(25,'PHYS 401','Astrophysics',3,3,400,0),
 (26,'CHEM 101','General Chemistry I',4,4,100,1),(27,'CHEM 102','General Chemistry II',4,4,100,1),
 (28,'CHEM 210','Organic Chemistry I',4,4,200,1),(29,'CHEM 211','Organic Chemistry II',4,4,200,1),
 (30,'CHEM 320','Physical Chemistry',4,3,300,0),(31,'CHEM 410','Biochemistry',4,3,400,0),
 (32,'BIO 101','Principles of Biology',5,4,100,1),(33,'BIO 150','Human Anatomy',5,4,100,1),
 (34,'BIO 210','Genetics',5,3,200,0),(35,'BIO 220','Cell Biology',5,3,200,0),
 (36,'BIO 310','Ecology',5,3,300,0),(37,'BIO 330','Microbiology',5,4,300,1),
 (38,'BIO 420','Neuroscience',5,3,400,0),
 (39,'ECON 101','Principles of Microeconomics',6,3,100,0),(40,'ECON 102','Principles of Macroeconomics',6,3,100,0),
 (41,'ECON 210','Intermediate Microeconomics',6,3,200,0),(42,'ECON 250','Econometrics',6,3,200,0),
 (43,'ECON 330','International Trade',6,3,300,0),(44,'ECON 410','Behavioral Economics',6,3,400,0),
 (45,'HIST 101','World History to 1500',7,3,100,0),(46,'HIST 102','World History since 1500',7,3,100,0),
 (47,'HIST 230','History of the United States',7,3,200,0),(48,'HIST 310','The Cold War',7,3,300,0),
 (49,'HIST 350','Medieval Europe',7,3,300,0),
 (50,'ENG 101','Academic Writing',8,3,100,0),(51,'ENG 120','Introduction to Literature',8,3,100,0),
 (52,'ENG 210','Shakespeare',8,3,200,0),(53,'ENG 305','The Modern Novel',8,3,300,0),
 (54,'ENG 340','Creative Writing Workshop',8,3,300,0),
 (55,'PSY 101','Introduction to Psychology',9,3,100,0),(56,'PSY 201','Research Methods in Psychology',9,3,200,0),
 (57,'PSY 220','Developmental Psychology',9,3,200,0),(58,'PSY 310','Cognitive Psychology',9,3,300,0),
 (59,'PSY 330','Social Psychology',9,3,300,0),(60,'PSY 410','Clinical Psychology',9,3,400,0),
 (61,'EE 101','Introduction to Electrical Engineering',10,4,100,1),(62,'EE 210','Circuit Analysis',10,4,200,1),
 (63,'EE 230','Digital Logic Design',10,3,200,0),(64,'EE 320','Signals and Systems',10,3,300,0),
 (65,'EE 350','Electromagnetics',10,3,300,0),(66,'EE 410','Embedded Systems',10,4,400,1);

WITH v(course_code, prereq_code, min_grade) AS (VALUES
 ('CS 201','CS 101','C'),('CS 201','CS 150','C'),('CS 220','CS 101','C'),('CS 310','CS 201','C'),
 ('CS 310','MATH 201','C'),('CS 330','CS 201','C'),('CS 345','CS 220','C'),('CS 345','CS 201','C'),
 ('CS 410','CS 310','C'),('CS 410','MATH 250','C'),('CS 410','MATH 201','C'),('CS 420','CS 345','C'),
 ('CS 460','CS 310','B-'),('MATH 102','MATH 101','C'),('MATH 201','MATH 102','C'),('MATH 210','MATH 102','C'),
 ('MATH 250','MATH 102','C'),('MATH 305','MATH 210','C'),('MATH 320','MATH 201','C'),('MATH 350','MATH 250','C'),
 ('MATH 410','MATH 201','C'),('MATH 410','CS 101','D'),('PHYS 101','MATH 101','D'),('PHYS 102','PHYS 101','C'),
 ('PHYS 201','PHYS 102','C'),('PHYS 301','PHYS 201','C'),('PHYS 301','MATH 201','C'),('PHYS 310','PHYS 201','C'),
 ('PHYS 401','PHYS 301','C'),('CHEM 102','CHEM 101','C'),('CHEM 210','CHEM 102','C'),('CHEM 211','CHEM 210','C'),
 ('CHEM 320','CHEM 102','C'),('CHEM 320','MATH 102','C'),('CHEM 410','CHEM 211','C'),('CHEM 410','BIO 220','C'),
 ('BIO 210','BIO 101','C'),('BIO 220','BIO 101','C'),('BIO 310','BIO 210','D'),('BIO 330','BIO 220','C'),
 ('BIO 330','CHEM 101','D'),('BIO 420','BIO 220','C'),('BIO 420','PSY 101','D'),('ECON 210','ECON 101','C'),
 ('ECON 250','ECON 101','C'),('ECON 250','MATH 250','C'),('ECON 330','ECON 102','C'),('ECON 330','ECON 210','C'),
 ('ECON 410','ECON 210','C'),('ECON 410','PSY 101','D'),('HIST 310','HIST 102','D'),('HIST 350','HIST 101','D'),
 ('ENG 210','ENG 120','D'),('ENG 305','ENG 120','C'),('ENG 340','ENG 101','B'),('PSY 201','PSY 101','C'),
 ('PSY 220','PSY 101','C'),('PSY 310','PSY 201','C'),('PSY 330','PSY 201','C'),('PSY 410','PSY 310','C'),
 ('EE 210','EE 101','C'),('EE 210','PHYS 102','C'),('EE 230','EE 101','C'),('EE 320','EE 210','C'),
 ('EE 320','MATH 210','C'),('EE 350','EE 210','C'),('EE 350','PHYS 102','C'),('EE 410','EE 230','C'),
 ('EE 410','CS 101','C'))
INSERT INTO prerequisites (course_id, prereq_course_id, min_grade)
SELECT c.course_id, p.course_id, v.min_grade
FROM v
JOIN courses c ON c.course_code = v.course_code
JOIN courses p ON p.course_code = v.prereq_code;

-- Terms ------------------------------------------------------------------------------------------
INSERT INTO terms (term_id, term_name, season, year, start_date, end_date) VALUES
 (1,'Fall 2020','Fall',2020,'2020-08-31','2020-12-18'),
 (2,'Spring 2021','Spring',2021,'2021-01-19','2021-05-14'),
 (3,'Fall 2021','Fall',2021,'2021-08-30','2021-12-17'),
 (4,'Spring 2022','Spring',2022,'2022-01-18','2022-05-13'),
 (5,'Summer 2022','Summer',2022,'2022-06-06','2022-08-12'),
 (6,'Fall 2022','Fall',2022,'2022-08-29','2022-12-16'),
 (7,'Spring 2023','Spring',2023,'2023-01-17','2023-05-12'),
 (8,'Summer 2023','Summer',2023,'2023-06-05','2023-08-11'),
 (9,'Fall 2023','Fall',2023,'2023-08-28','2023-12-15'),
 (10,'Spring 2024','Spring',2024,'2024-01-16','2024-05-10');

-- Sections: which courses run in which term, who teaches them, where and when ----------------------
CREATE TEMP TABLE inst_idx AS
SELECT dept_id, ROW_NUMBER() OVER (PARTITION BY dept_id ORDER BY instructor_id) AS k, instructor_id
FROM instructors;
CREATE TEMP TABLE dept_size AS SELECT dept_id, COUNT(*) AS n FROM instructors GROUP BY dept_id;

CREATE TEMP TABLE room_idx AS
SELECT CASE room_type WHEN 'Lecture hall' THEN 'big' WHEN 'Seminar room' THEN 'small' ELSE 'lab' END AS pool,
       ROW_NUMBER() OVER (PARTITION BY room_type IN ('Teaching lab','Computer lab'), room_type = 'Lecture hall'
                          ORDER BY room_id) AS k,
       room_id
FROM classrooms;
CREATE TEMP TABLE pool_size AS SELECT pool, COUNT(*) AS n FROM room_idx GROUP BY pool;

CREATE TEMP TABLE section_stage AS
WITH offer AS (
  SELECT c.course_id, c.dept_id, c.level, c.has_lab, t.term_id, t.season,
         ra.u AS u_offer, rb.u AS u_second, (c.course_id * 12 + t.term_id) * 8 AS base
  FROM courses c CROSS JOIN terms t
  JOIN rnd ra ON ra.i = 5000 + (c.course_id * 12 + t.term_id) * 8
  JOIN rnd rb ON rb.i = 5000 + (c.course_id * 12 + t.term_id) * 8 + 1
  WHERE CASE
          WHEN t.season = 'Summer' THEN c.level = 100 AND ra.u < 0.35
          WHEN c.level = 100 THEN 1
          WHEN c.level = 200 THEN ra.u < 0.80
          WHEN c.level = 300 THEN ra.u < 0.60
          ELSE ra.u < 0.45 END
), numbered AS (
  SELECT o.*, 1 AS section_number, 2 AS slot FROM offer o
  UNION ALL
  SELECT o.*, 2, 5 FROM offer o WHERE o.level = 100 AND o.season <> 'Summer' AND o.u_second < 0.55
)
SELECT nb.course_id, nb.term_id, nb.section_number, nb.dept_id, nb.level,
       CASE WHEN ri.u < 0.025 THEN NULL ELSE ii.instructor_id END AS instructor_id,
       CASE WHEN nb.level = 100 AND nb.season <> 'Summer' THEN 'big'
            WHEN nb.has_lab = 1 AND nb.level > 100 THEN 'lab' ELSE 'small' END AS pool,
       rr.u AS u_room, rd.u AS u_days
FROM numbered nb
JOIN rnd ri ON ri.i = 5000 + nb.base + nb.slot
JOIN rnd rr ON rr.i = 5000 + nb.base + nb.slot + 1
JOIN rnd rd ON rd.i = 5000 + nb.base + nb.slot + 2
JOIN dept_size ds ON ds.dept_id = nb.dept_id
JOIN inst_idx ii ON ii.dept_id = nb.dept_id AND ii.k = 1 + CAST(ri.u * ds.n AS INTEGER);

INSERT INTO sections (section_id, course_id, term_id, section_number, instructor_id, room_id, meeting_days, start_time, capacity)
SELECT ROW_NUMBER() OVER (ORDER BY ss.term_id, ss.course_id, ss.section_number),
       ss.course_id, ss.term_id, ss.section_number, ss.instructor_id, ri.room_id,
       CASE WHEN ss.u_days < 0.48 THEN 'MWF' WHEN ss.u_days < 0.93 THEN 'TR' ELSE 'W' END,
       CASE WHEN ss.u_days >= 0.93 THEN '18:30'
            ELSE substr('08:0009:0010:0011:0012:3014:0015:3017:00', 1 + 5 * CAST(ss.u_room * 97 % 8 AS INTEGER), 5) END,
       cr.capacity
FROM section_stage ss
JOIN pool_size ps ON ps.pool = ss.pool
JOIN room_idx ri ON ri.pool = ss.pool AND ri.k = 1 + CAST(ss.u_room * ps.n AS INTEGER)
JOIN classrooms cr ON cr.room_id = ri.room_id;

-- Students ---------------------------------------------------------------------------------------
CREATE TEMP TABLE major_weight (dept_id INTEGER, lo REAL, hi REAL);
INSERT INTO major_weight VALUES
 (1,0.00,0.21),(2,0.21,0.28),(3,0.28,0.32),(4,0.32,0.38),(5,0.38,0.52),
 (6,0.52,0.65),(7,0.65,0.70),(8,0.70,0.76),(9,0.76,0.89),(10,0.89,1.00);

CREATE TEMP TABLE state_weight (state TEXT, lo REAL, hi REAL);
INSERT INTO state_weight VALUES
 ('MA',0.00,0.27),('NY',0.27,0.40),('CA',0.40,0.51),('NJ',0.51,0.58),('CT',0.58,0.65),('NH',0.65,0.70),
 ('PA',0.70,0.75),('RI',0.75,0.79),('TX',0.79,0.83),('IL',0.83,0.86),('FL',0.86,0.89),('ME',0.89,0.92),
 ('VT',0.92,0.94),('OH',0.94,0.96),('WA',0.96,0.98),('GA',0.98,1.00);

CREATE TEMP TABLE country_weight (country TEXT, lo REAL, hi REAL);
INSERT INTO country_weight VALUES
 ('China',0.00,0.28),('India',0.28,0.50),('South Korea',0.50,0.60),('Canada',0.60,0.71),
 ('Germany',0.71,0.77),('Brazil',0.77,0.83),('Nigeria',0.83,0.89),('Mexico',0.89,0.94),('Vietnam',0.94,1.00);

CREATE TEMP TABLE stu_stage AS
SELECT s.n AS student_id, fn.name AS first_name, ln.name AS last_name,
       CASE WHEN r3.u < 0.03 THEN NULL ELSE fn.gender END AS gender,
       CASE WHEN r4.u < 0.11 THEN 2017 WHEN r4.u < 0.23 THEN 2018 WHEN r4.u < 0.36 THEN 2019
            WHEN r4.u < 0.50 THEN 2020 WHEN r4.u < 0.65 THEN 2021 WHEN r4.u < 0.82 THEN 2022 ELSE 2023 END AS admission_year,
       r5.u AS u_major, r6.u AS u_advisor, r7.u AS u_birth, r8.u AS u_home, r9.u AS u_place,
       r10.u AS u_scholarship, r11.u AS u_dropout, (r12.u + r13.u + r14.u) / 3.0 AS ability
FROM seq s
JOIN rnd r1 ON r1.i = 12000 + s.n * 16
JOIN rnd r2 ON r2.i = 12000 + s.n * 16 + 1
JOIN rnd r3 ON r3.i = 12000 + s.n * 16 + 2
JOIN rnd r4 ON r4.i = 12000 + s.n * 16 + 3
JOIN rnd r5 ON r5.i = 12000 + s.n * 16 + 4
JOIN rnd r6 ON r6.i = 12000 + s.n * 16 + 5
JOIN rnd r7 ON r7.i = 12000 + s.n * 16 + 6
JOIN rnd r8 ON r8.i = 12000 + s.n * 16 + 7
JOIN rnd r9 ON r9.i = 12000 + s.n * 16 + 8
JOIN rnd r10 ON r10.i = 12000 + s.n * 16 + 9
JOIN rnd r11 ON r11.i = 12000 + s.n * 16 + 10
JOIN rnd r12 ON r12.i = 12000 + s.n * 16 + 11
JOIN rnd r13 ON r13.i = 12000 + s.n * 16 + 12
JOIN rnd r14 ON r14.i = 12000 + s.n * 16 + 13
JOIN first_names fn ON fn.k = 1 + CAST(r1.u * (SELECT COUNT(*) FROM first_names) AS INTEGER)
JOIN last_names ln ON ln.k = 1 + CAST(r2.u * (SELECT COUNT(*) FROM last_names) AS INTEGER)
WHERE s.n <= 860;

CREATE TEMP TABLE stu_full AS
SELECT st.*,
       CASE WHEN st.admission_year >= 2022 AND st.u_advisor < 0.22 THEN NULL ELSE mw.dept_id END AS major_dept_id,
       st.u_dropout < 0.08 AS dropped_out,
       ROW_NUMBER() OVER (PARTITION BY st.first_name, st.last_name, st.admission_year ORDER BY st.student_id) AS name_rn
FROM stu_stage st
JOIN major_weight mw ON st.u_major >= mw.lo AND st.u_major < mw.hi;

INSERT INTO students (student_id, first_name, last_name, gender, birth_date, email, admission_year, major_dept_id,
                      advisor_id, home_country, home_state, scholarship_usd, graduation_date)
SELECT sf.student_id, sf.first_name, sf.last_name, sf.gender,
       date(CAST(sf.admission_year - 19 AS TEXT) || '-09-01', '+' || CAST(sf.u_birth * 480 AS INTEGER) || ' days'),
       lower(replace(sf.first_name, '-', '') || '.' || replace(replace(sf.last_name, '''', ''), 'ü', 'ue'))
         || substr(CAST(sf.admission_year AS TEXT), 3, 2)
         || CASE WHEN sf.name_rn > 1 THEN '-' || sf.name_rn ELSE '' END || '@students.ashford.edu',
       sf.admission_year, sf.major_dept_id,
       CASE WHEN sf.major_dept_id IS NULL OR sf.u_advisor > 0.95 THEN NULL ELSE ii.instructor_id END,
       CASE WHEN sf.u_home < 0.13 THEN cw.country ELSE 'USA' END,
       CASE WHEN sf.u_home < 0.13 THEN NULL ELSE sw.state END,
       CASE WHEN sf.u_scholarship < 0.35 THEN 500 * round((2000 + 28000 * sf.u_scholarship / 0.35 * sf.ability) / 500.0) END,
       CASE WHEN sf.admission_year <= 2019 AND NOT sf.dropped_out
            THEN CASE sf.admission_year WHEN 2017 THEN '2021-05-23' WHEN 2018 THEN '2022-05-22' ELSE '2023-05-21' END END
FROM stu_full sf
JOIN state_weight sw ON sf.u_place >= sw.lo AND sf.u_place < sw.hi
JOIN country_weight cw ON sf.u_place >= cw.lo AND sf.u_place < cw.hi
LEFT JOIN dept_size ds ON ds.dept_id = sf.major_dept_id
LEFT JOIN inst_idx ii ON ii.dept_id = sf.major_dept_id AND ii.k = 1 + CAST(sf.u_advisor * ds.n AS INTEGER);

-- Enrolments: each active student picks sections of the term, biased to the major and to the
-- course level matching the year of study; full sections turn later registrants away ----------------
CREATE TEMP TABLE active_terms AS
SELECT sf.student_id, sf.major_dept_id, sf.ability, t.term_id, t.season, t.start_date,
       (CASE t.season WHEN 'Fall' THEN t.year ELSE t.year - 1 END) - sf.admission_year + 1 AS study_year,
       ((sf.student_id * 1000003 + t.term_id * 7919 + 17) * 48271 % 2147483647) * 16807 % 2147483647 % 100 AS h_load
FROM stu_full sf CROSS JOIN terms t
WHERE (CASE t.season WHEN 'Fall' THEN t.year ELSE t.year - 1 END)
      BETWEEN sf.admission_year AND sf.admission_year + CASE WHEN sf.dropped_out THEN 1 ELSE 3 END;

CREATE TEMP TABLE picks AS
WITH cand AS (
  SELECT a.student_id, a.term_id, a.start_date, a.ability, a.major_dept_id, s.section_id, s.capacity, c.course_id, c.dept_id, c.level,
         CASE WHEN a.season = 'Summer' THEN 1 WHEN a.h_load < 25 THEN 3 WHEN a.h_load >= 93 THEN 5 ELSE 4 END AS load,
         ((a.student_id * 1000003 + s.section_id * 7919 + 29) * 48271 % 2147483647) * 16807 % 2147483647 AS h,
         a.season, a.h_load, MIN(a.study_year, 4) AS study_year
  FROM active_terms a
  JOIN sections s ON s.term_id = a.term_id
  JOIN courses c ON c.course_id = s.course_id
  WHERE a.season <> 'Summer' OR a.h_load < 25
), scored AS (
  SELECT cand.*,
         (h % 1000) / 1000.0
         - CASE WHEN dept_id = major_dept_id THEN 0.55 ELSE 0 END
         + 0.3 * abs(level / 100 - study_year)
         - CASE WHEN level = 100 AND dept_id IN (2, 8) THEN 0.2 ELSE 0 END AS score
  FROM cand
), ranked AS (
  SELECT scored.*, ROW_NUMBER() OVER (PARTITION BY student_id, term_id ORDER BY score, section_id) AS pick_rank
  FROM scored
), first_take AS (
  SELECT ranked.*, ROW_NUMBER() OVER (PARTITION BY student_id, course_id ORDER BY term_id, section_id) AS take_no
  FROM ranked WHERE pick_rank <= load
)
SELECT student_id, term_id, section_id, capacity, course_id, dept_id, level, major_dept_id, ability,
       date(start_date, '-' || (4 + h / 1000 % 50) || ' days') AS enrolled_on,
       h
FROM first_take WHERE take_no = 1;

CREATE TEMP TABLE seated AS
SELECT p.*, ROW_NUMBER() OVER (PARTITION BY section_id ORDER BY enrolled_on, student_id) AS seat_no FROM picks p;

CREATE TEMP TABLE graded AS
SELECT s.*,
       1.75 + 3.0 * s.ability + 1.2 * ((s.h / 100000 % 1000) / 1000.0 - 0.5)
       - 0.12 * (s.level / 100 - 1)
       - CASE WHEN s.dept_id IN (2, 3, 4, 10) THEN 0.2 ELSE 0 END
       + CASE WHEN s.dept_id = s.major_dept_id THEN 0.1 ELSE 0 END AS perf,
       s.h / 10000000 % 100 AS h_withdraw
FROM seated s WHERE s.seat_no <= s.capacity;

INSERT INTO enrollments (enrollment_id, student_id, section_id, enrolled_on, status, grade, grade_points)
SELECT ROW_NUMBER() OVER (ORDER BY term_id, student_id, section_id), student_id, section_id, enrolled_on,
       CASE WHEN term_id = 10 THEN 'Enrolled' WHEN h_withdraw < 4 THEN 'Withdrawn' ELSE 'Completed' END,
       CASE WHEN term_id = 10 THEN NULL WHEN h_withdraw < 4 THEN 'W'
            WHEN perf >= 3.85 THEN 'A' WHEN perf >= 3.5 THEN 'A-' WHEN perf >= 3.15 THEN 'B+'
            WHEN perf >= 2.85 THEN 'B' WHEN perf >= 2.5 THEN 'B-' WHEN perf >= 2.15 THEN 'C+'
            WHEN perf >= 1.8 THEN 'C' WHEN perf >= 1.3 THEN 'D' ELSE 'F' END,
       CASE WHEN term_id = 10 OR h_withdraw < 4 THEN NULL
            WHEN perf >= 3.85 THEN 4.0 WHEN perf >= 3.5 THEN 3.7 WHEN perf >= 3.15 THEN 3.3
            WHEN perf >= 2.85 THEN 3.0 WHEN perf >= 2.5 THEN 2.7 WHEN perf >= 2.15 THEN 2.3
            WHEN perf >= 1.8 THEN 2.0 WHEN perf >= 1.3 THEN 1.0 ELSE 0.0 END
FROM graded;
