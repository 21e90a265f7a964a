-- hospital data: hand-written reference rows plus deterministic generated rows.
-- Randomness comes from temp.rnd, a hand-written LCG (glibc constants) run by a recursive CTE, so every
-- build produces exactly the same rows. Temp tables live outside the database file and vanish on close.

CREATE TEMP TABLE rnd (i INTEGER PRIMARY KEY, r INTEGER NOT NULL);
INSERT INTO temp.rnd (i, r)
WITH RECURSIVE lcg (i, s) AS (
  SELECT 0, 1987654
  UNION ALL
  SELECT i + 1, (s * 1103515245 + 12345) % 2147483648 FROM lcg WHERE i < 199999
)
SELECT i, s >> 8 FROM lcg; -- r is uniform in [0, 8388608); the low LCG bits are dropped as too regular

-- ------------------------------------------------------------------------------------- reference rows

INSERT INTO departments (department_id, name, building, floor, phone_ext) VALUES
  (1, 'Emergency Medicine', 'A', 0, '2100'),
  (2, 'Internal Medicine', 'A', 2, '2240'),
  (3, 'Cardiology', 'B', 1, '3110'),
  (4, 'Neurology', 'B', 3, '3320'),
  (5, 'Orthopaedics', 'C', 1, '4150'),
  (6, 'General Surgery', 'C', 2, '4260'),
  (7, 'Oncology', 'D', 1, '5120'),
  (8, 'Paediatrics', 'D', 2, '5230'),
  (9, 'Obstetrics & Gynaecology', 'D', 3, '5340');

INSERT INTO wards (ward_id, name, department_id, ward_type, bed_count) VALUES
  (1, 'A&E Observation', 1, 'observation', 12),
  (2, 'Intensive Care Unit', 2, 'intensive care', 10),
  (3, 'Elm Ward', 2, 'general', 28),
  (4, 'Oak Ward', 2, 'general', 26),
  (5, 'Coronary Care Unit', 3, 'intensive care', 8),
  (6, 'Cardiology Ward', 3, 'general', 20),
  (7, 'Stroke Unit', 4, 'general', 16),
  (8, 'Orthopaedic Ward', 5, 'general', 24),
  (9, 'Willow Ward', 6, 'general', 30),
  (10, 'Oncology Ward', 7, 'general', 18),
  (11, 'Children''s Ward', 8, 'paediatric', 22),
  (12, 'Maternity Ward', 9, 'maternity', 24),
  (13, 'Day Surgery Unit', 6, 'day case', 14);

INSERT INTO conditions (icd10_code, name, body_system, is_chronic, department_id) VALUES
  ('R07', 'Chest pain, unspecified', 'symptoms', 0, 1),
  ('T14', 'Injury of unspecified body region', 'injury', 0, 1),
  ('A09', 'Infectious gastroenteritis and colitis', 'digestive', 0, 1),
  ('S52', 'Fracture of forearm', 'injury', 0, 1),
  ('I10', 'Essential (primary) hypertension', 'circulatory', 1, 2),
  ('E11', 'Type 2 diabetes mellitus', 'endocrine', 1, 2),
  ('J18', 'Pneumonia, organism unspecified', 'respiratory', 0, 2),
  ('J45', 'Asthma', 'respiratory', 1, 2),
  ('N39', 'Urinary tract infection', 'genitourinary', 0, 2),
  ('F32', 'Depressive episode', 'mental', 1, 2),
  ('I48', 'Atrial fibrillation and flutter', 'circulatory', 1, 3),
  ('I25', 'Chronic ischaemic heart disease', 'circulatory', 1, 3),
  ('I50', 'Heart failure', 'circulatory', 1, 3),
  ('I21', 'Acute myocardial infarction', 'circulatory', 0, 3),
  ('G43', 'Migraine', 'nervous', 1, 4),
  ('G40', 'Epilepsy', 'nervous', 1, 4),
  ('I63', 'Cerebral infarction (stroke)', 'circulatory', 0, 4),
  ('G35', 'Multiple sclerosis', 'nervous', 1, 4),
  ('M54', 'Dorsalgia (back pain)', 'musculoskeletal', 0, 5),
  ('M17', 'Osteoarthritis of knee', 'musculoskeletal', 1, 5),
  ('S72', 'Fracture of femur', 'injury', 0, 5),
  ('K80', 'Cholelithiasis (gallstones)', 'digestive', 0, 6),
  ('K35', 'Acute appendicitis', 'digestive', 0, 6),
  ('K40', 'Inguinal hernia', 'digestive', 0, 6),
  ('C50', 'Malignant neoplasm of breast', 'neoplasm', 1, 7),
  ('C34', 'Malignant neoplasm of bronchus and lung', 'neoplasm', 1, 7),
  ('C18', 'Malignant neoplasm of colon', 'neoplasm', 1, 7),
  ('J06', 'Acute upper respiratory infection', 'respiratory', 0, 8),
  ('H66', 'Otitis media', 'ear', 0, 8),
  ('J21', 'Acute bronchiolitis', 'respiratory', 0, 8),
  ('O80', 'Single spontaneous delivery', 'pregnancy', 0, 9),
  ('O24', 'Diabetes mellitus in pregnancy', 'pregnancy', 0, 9),
  ('N80', 'Endometriosis', 'genitourinary', 1, 9);

INSERT INTO medications (medication_id, name, drug_class, form, unit_cost, requires_prescription) VALUES
  (1, 'Amlodipine', 'calcium channel blocker', 'tablet', 0.08, 1),
  (2, 'Lisinopril', 'ACE inhibitor', 'tablet', 0.07, 1),
  (3, 'Metformin', 'biguanide', 'tablet', 0.05, 1),
  (4, 'Insulin glargine', 'insulin', 'injection', 9.80, 1),
  (5, 'Atorvastatin', 'statin', 'tablet', 0.06, 1),
  (6, 'Apixaban', 'anticoagulant', 'tablet', 0.95, 1),
  (7, 'Bisoprolol', 'beta blocker', 'tablet', 0.04, 1),
  (8, 'Furosemide', 'loop diuretic', 'tablet', 0.03, 1),
  (9, 'Salbutamol', 'bronchodilator', 'inhaler', 1.50, 1),
  (10, 'Amoxicillin', 'penicillin antibiotic', 'capsule', 0.12, 1),
  (11, 'Amoxicillin oral suspension', 'penicillin antibiotic', 'syrup', 0.45, 1),
  (12, 'Ciprofloxacin', 'fluoroquinolone antibiotic', 'tablet', 0.20, 1),
  (13, 'Ibuprofen', 'NSAID', 'tablet', 0.02, 0),
  (14, 'Paracetamol', 'analgesic', 'tablet', 0.01, 0),
  (15, 'Morphine sulfate', 'opioid', 'injection', 2.40, 1),
  (16, 'Tramadol', 'opioid', 'capsule', 0.15, 1),
  (17, 'Sumatriptan', 'triptan', 'tablet', 0.35, 1),
  (18, 'Levetiracetam', 'antiepileptic', 'tablet', 0.30, 1),
  (19, 'Sertraline', 'SSRI antidepressant', 'tablet', 0.09, 1),
  (20, 'Tamoxifen', 'hormone antagonist', 'tablet', 0.25, 1),
  (21, 'Capecitabine', 'antimetabolite chemotherapy', 'tablet', 4.10, 1),
  (22, 'Omeprazole', 'proton pump inhibitor', 'capsule', 0.04, 1),
  (23, 'Ondansetron', 'antiemetic', 'tablet', 0.30, 1),
  (24, 'Interferon beta-1a', 'immunomodulator', 'injection', 180.00, 1),
  (25, 'Oral rehydration salts', 'electrolyte replacement', 'powder', 0.20, 0);

-- Which medication treats which condition, the typical dose and frequency (first row per condition is the usual choice).
CREATE TEMP TABLE treats (icd10_code TEXT, k INTEGER, medication_id INTEGER, dose_mg REAL, times_per_day INTEGER, PRIMARY KEY (icd10_code, k));
INSERT INTO temp.treats VALUES
  ('R07', 0, 14, 1000, 4), ('R07', 1, 22, 20, 1),
  ('T14', 0, 14, 1000, 4), ('T14', 1, 13, 400, 3), ('T14', 2, 16, 50, 3),
  ('A09', 0, 25, 4000, 3), ('A09', 1, 23, 4, 2),
  ('S52', 0, 13, 400, 3), ('S52', 1, 14, 1000, 4),
  ('I10', 0, 1, 5, 1), ('I10', 1, 2, 10, 1),
  ('E11', 0, 3, 500, 2), ('E11', 1, 4, 20, 1),
  ('J18', 0, 10, 500, 3), ('J18', 1, 12, 500, 2),
  ('J45', 0, 9, 0.1, 2),
  ('N39', 0, 12, 250, 2), ('N39', 1, 10, 500, 3),
  ('F32', 0, 19, 50, 1),
  ('I48', 0, 6, 5, 2), ('I48', 1, 7, 2.5, 1),
  ('I50', 0, 8, 40, 1), ('I50', 1, 7, 5, 1),
  ('I21', 0, 5, 80, 1), ('I21', 1, 15, 5, 4),
  ('I25', 0, 5, 40, 1), ('I25', 1, 7, 5, 1),
  ('G43', 0, 17, 50, 1), ('G43', 1, 13, 400, 2),
  ('G40', 0, 18, 500, 2),
  ('I63', 0, 5, 80, 1),
  ('G35', 0, 24, 0.044, 1),
  ('M17', 0, 13, 400, 3), ('M17', 1, 16, 50, 2),
  ('S72', 0, 15, 5, 4), ('S72', 1, 14, 1000, 4),
  ('M54', 0, 13, 400, 3), ('M54', 1, 14, 1000, 4),
  ('K80', 0, 14, 1000, 4), ('K80', 1, 22, 20, 1),
  ('K35', 0, 10, 500, 3), ('K35', 1, 15, 5, 4),
  ('K40', 0, 14, 1000, 4),
  ('C50', 0, 20, 20, 1), ('C50', 1, 23, 8, 2),
  ('C34', 0, 21, 1250, 2), ('C34', 1, 23, 8, 2),
  ('C18', 0, 21, 1250, 2), ('C18', 1, 23, 8, 2),
  ('J06', 0, 14, 250, 4), ('J06', 1, 13, 100, 3),
  ('H66', 0, 11, 250, 3),
  ('J21', 0, 14, 120, 4),
  ('O80', 0, 14, 1000, 4),
  ('O24', 0, 4, 10, 1), ('O24', 1, 3, 500, 2),
  ('N80', 0, 13, 400, 3);

CREATE TEMP TABLE first_names_f (k INTEGER PRIMARY KEY, name TEXT);
INSERT INTO temp.first_names_f VALUES
  (0, 'Olivia'), (1, 'Amelia'), (2, 'Isla'), (3, 'Ava'), (4, 'Emily'), (5, 'Sophia'), (6, 'Grace'), (7, 'Mia'),
  (8, 'Poppy'), (9, 'Ella'), (10, 'Margaret'), (11, 'Susan'), (12, 'Patricia'), (13, 'Linda'), (14, 'Karen'),
  (15, 'Helen'), (16, 'Sarah'), (17, 'Rachel'), (18, 'Priya'), (19, 'Aisha'), (20, 'Joan'), (21, 'Fatima'),
  (22, 'Hannah'), (23, 'Lucy');
CREATE TEMP TABLE first_names_m (k INTEGER PRIMARY KEY, name TEXT);
INSERT INTO temp.first_names_m VALUES
  (0, 'Oliver'), (1, 'George'), (2, 'Harry'), (3, 'Noah'), (4, 'Jack'), (5, 'Leo'), (6, 'Arthur'), (7, 'Muhammad'),
  (8, 'Oscar'), (9, 'Charlie'), (10, 'David'), (11, 'John'), (12, 'Michael'), (13, 'Peter'), (14, 'Robert'),
  (15, 'Paul'), (16, 'Mark'), (17, 'Andrew'), (18, 'Rajesh'), (19, 'Tomasz'), (20, 'Kevin'), (21, 'Samuel'),
  (22, 'Daniel'), (23, 'Ian');
CREATE TEMP TABLE last_names (k INTEGER PRIMARY KEY, name TEXT);
INSERT INTO temp.last_names VALUES
  (0, 'Smith'), (1, 'Jones'), (2, 'Williams'), (3, 'Taylor'), (4, 'Brown'), (5, 'Davies'), (6, 'Evans'),
  (7, 'Wilson'), (8, 'Thomas'), (9, 'Johnson'), (10, 'Roberts'), (11, 'Robinson'), (12, 'Thompson'),
  (13, 'Wright'), (14, 'Walker'), (15, 'White'), (16, 'Edwards'), (17, 'Hughes'), (18, 'Green'), (19, 'Hall'),
  (20, 'Lewis'), (21, 'Harris'), (22, 'Clarke'), (23, 'Patel'), (24, 'Jackson'), (25, 'Wood'), (26, 'Turner'),
  (27, 'Martin'), (28, 'Cooper'), (29, 'Hill'), (30, 'Ward'), (31, 'Khan'), (32, 'Morris'), (33, 'Nowak');

-- Patients' home towns with cumulative weights in per mille.
CREATE TEMP TABLE towns (lo INTEGER, hi INTEGER, city TEXT);
INSERT INTO temp.towns VALUES
  (0, 400, 'Bristol'), (400, 520, 'Bath'), (520, 620, 'Weston-super-Mare'), (620, 680, 'Clevedon'),
  (680, 740, 'Portishead'), (740, 810, 'Keynsham'), (810, 890, 'Yate'), (890, 940, 'Thornbury'),
  (940, 1000, 'Nailsea');

-- ---------------------------------------------------------------------------------------------- doctors

-- Doctors are numbered by department; the first doctor of each department is a long-serving consultant.
CREATE TEMP TABLE dept_staff (department_id INTEGER PRIMARY KEY, first_id INTEGER, staff INTEGER);
INSERT INTO temp.dept_staff VALUES
  (1, 1, 7), (2, 8, 8), (3, 16, 5), (4, 21, 4), (5, 25, 5), (6, 30, 5), (7, 35, 4), (8, 39, 5), (9, 44, 4);

INSERT INTO doctors
WITH RECURSIVE n (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM n WHERE n < 47),
draw AS (
  SELECT n, ds.department_id, n = ds.first_id AS is_head,
    (SELECT r FROM temp.rnd WHERE i = n * 6 + 0) AS r0, (SELECT r FROM temp.rnd WHERE i = n * 6 + 1) AS r1,
    (SELECT r FROM temp.rnd WHERE i = n * 6 + 2) AS r2, (SELECT r FROM temp.rnd WHERE i = n * 6 + 3) AS r3,
    (SELECT r FROM temp.rnd WHERE i = n * 6 + 4) AS r4
  FROM n JOIN temp.dept_staff AS ds ON n.n >= ds.first_id AND n.n < ds.first_id + ds.staff
),
graded AS (
  SELECT d.*,
    CASE WHEN is_head OR r2 % 100 < 30 THEN 'consultant' WHEN r2 % 100 < 70 THEN 'registrar' ELSE 'junior doctor' END AS grade
  FROM draw AS d
)
SELECT
  n,
  CASE WHEN r0 % 2 = 0 THEN (SELECT name FROM temp.first_names_f WHERE k = r1 % 24)
       ELSE (SELECT name FROM temp.first_names_m WHERE k = r1 % 24) END,
  (SELECT name FROM temp.last_names WHERE k = (r1 >> 5) % 34),
  CASE WHEN grade = 'consultant' AND r3 % 3 = 0 THEN 'Prof' ELSE 'Dr' END,
  department_id,
  grade,
  CASE WHEN is_head THEN date('1998-01-01', '+' || (r4 % 5000) || ' days')
       WHEN grade = 'consultant' THEN date('2003-01-01', '+' || (r4 % 6000) || ' days')
       WHEN grade = 'registrar' THEN date('2012-01-01', '+' || (r4 % 3600) || ' days')
       ELSE date('2019-08-01', '+' || (r4 % 1800) || ' days') END,
  CASE WHEN NOT is_head AND r3 % 100 < 9 THEN date('2023-01-01', '+' || (r3 % 700) || ' days') END
FROM graded
ORDER BY n;

-- --------------------------------------------------------------------------------------------- patients

INSERT INTO patients
WITH RECURSIVE n (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM n WHERE n < 900),
draw AS (
  SELECT n,
    (SELECT r FROM temp.rnd WHERE i = 1000 + n * 8 + 0) AS r0, (SELECT r FROM temp.rnd WHERE i = 1000 + n * 8 + 1) AS r1,
    (SELECT r FROM temp.rnd WHERE i = 1000 + n * 8 + 2) AS r2, (SELECT r FROM temp.rnd WHERE i = 1000 + n * 8 + 3) AS r3,
    (SELECT r FROM temp.rnd WHERE i = 1000 + n * 8 + 4) AS r4, (SELECT r FROM temp.rnd WHERE i = 1000 + n * 8 + 5) AS r5,
    (SELECT r FROM temp.rnd WHERE i = 1000 + n * 8 + 6) AS r6
  FROM n
),
born AS (
  SELECT d.*,
    CASE WHEN r0 % 100 < 52 THEN 'F' ELSE 'M' END AS sex,
    CASE WHEN r1 % 100 < 16 THEN date('2007-01-01', '+' || (r2 % 6200) || ' days')
         ELSE date('1932-01-01', '+' || (r2 % 27000) || ' days') END AS birth_date
  FROM draw AS d
)
SELECT
  n,
  CASE WHEN sex = 'F' THEN (SELECT name FROM temp.first_names_f WHERE k = r3 % 24)
       ELSE (SELECT name FROM temp.first_names_m WHERE k = r3 % 24) END,
  (SELECT name FROM temp.last_names WHERE k = (r3 >> 5) % 34),
  sex,
  birth_date,
  CASE WHEN r4 % 1000 < 330 THEN 'O+' WHEN r4 % 1000 < 620 THEN 'A+' WHEN r4 % 1000 < 700 THEN 'B+'
       WHEN r4 % 1000 < 725 THEN 'AB+' WHEN r4 % 1000 < 790 THEN 'O-' WHEN r4 % 1000 < 845 THEN 'A-'
       WHEN r4 % 1000 < 860 THEN 'B-' WHEN r4 % 1000 < 868 THEN 'AB-' ELSE NULL END,
  (SELECT city FROM temp.towns WHERE (r5 >> 3) % 1000 >= lo AND (r5 >> 3) % 1000 < hi),
  CASE WHEN r5 % 100 < 78 THEN 'public' WHEN r5 % 100 < 95 THEN 'private' ELSE 'self-pay' END,
  max(birth_date, date('2012-01-01', '+' || (r6 % 4700) || ' days')),
  CASE WHEN birth_date > '2006-12-31' THEN 0 WHEN r6 % 100 < 12 THEN NULL WHEN r6 % 100 < 31 THEN 1 ELSE 0 END
FROM born
ORDER BY n;

-- Each adult patient may carry one long-term condition that shows up as a secondary diagnosis.
CREATE TEMP TABLE comorbidity (patient_id INTEGER PRIMARY KEY, icd10_code TEXT);
INSERT INTO temp.comorbidity
SELECT patient_id,
  CASE WHEN (SELECT r FROM temp.rnd WHERE i = 9000 + patient_id) % 100 < 22 THEN 'I10'
       WHEN (SELECT r FROM temp.rnd WHERE i = 9000 + patient_id) % 100 < 34 THEN 'E11'
       WHEN (SELECT r FROM temp.rnd WHERE i = 9000 + patient_id) % 100 < 42 THEN 'J45'
       WHEN (SELECT r FROM temp.rnd WHERE i = 9000 + patient_id) % 100 < 48 THEN 'F32' END
FROM patients
WHERE birth_date <= '2006-12-31';

-- ----------------------------------------------------------------------------------------- appointments

INSERT INTO appointments
WITH RECURSIVE n (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM n WHERE n < 3600),
draw AS (
  SELECT n,
    (SELECT r FROM temp.rnd WHERE i = 10000 + n * 8 + 0) AS r0, (SELECT r FROM temp.rnd WHERE i = 10000 + n * 8 + 1) AS r1,
    (SELECT r FROM temp.rnd WHERE i = 10000 + n * 8 + 2) AS r2, (SELECT r FROM temp.rnd WHERE i = 10000 + n * 8 + 3) AS r3,
    (SELECT r FROM temp.rnd WHERE i = 10000 + n * 8 + 4) AS r4, (SELECT r FROM temp.rnd WHERE i = 10000 + n * 8 + 5) AS r5
  FROM n
),
who AS (
  -- a minority of (chronically ill) patients make most of the visits
  SELECT d.*, 1 + CAST(900 * (0.35 * (r0 / 8388608.0) + 0.65 * (r0 / 8388608.0) * (r0 / 8388608.0)) AS INTEGER) AS patient_id
  FROM draw AS d
),
dept AS (
  SELECT w.*, p.sex, p.birth_date, p.registered_date,
    CASE
      WHEN p.birth_date > '2006-12-31' THEN CASE WHEN r1 % 100 < 80 THEN 8 ELSE 1 END
      WHEN r1 % 100 < 16 THEN 1
      WHEN r1 % 100 < 38 THEN 2
      WHEN r1 % 100 < 53 THEN 3
      WHEN r1 % 100 < 62 THEN 4
      WHEN r1 % 100 < 74 THEN 5
      WHEN r1 % 100 < 83 THEN 6
      WHEN r1 % 100 < 90 THEN 7
      WHEN p.sex = 'F' AND p.birth_date > '1976-01-01' THEN 9
      ELSE 2 END AS department_id
  FROM who AS w JOIN patients AS p USING (patient_id)
),
dated AS (
  SELECT d.*,
    date(max(d.registered_date, '2021-01-01'),
         '+' || (r2 % (1 + julianday('2024-12-31') - julianday(max(d.registered_date, '2021-01-01')))) || ' days') AS appointment_date,
    ds.first_id + r3 % ds.staff AS doctor_pick, ds.first_id AS head_id
  FROM dept AS d JOIN temp.dept_staff AS ds USING (department_id)
),
staffed AS (
  -- a doctor who had not started yet or had already left hands the patient to the head of department
  SELECT t.*,
    CASE WHEN doc.hire_date > t.appointment_date OR doc.leave_date <= t.appointment_date THEN t.head_id ELSE t.doctor_pick END AS doctor_id
  FROM dated AS t JOIN doctors AS doc ON doc.doctor_id = t.doctor_pick
),
typed AS (
  SELECT s.*, doc.grade,
    CASE WHEN s.department_id = 1 THEN 'emergency' WHEN r4 % 100 < 36 THEN 'first visit' ELSE 'follow-up' END AS visit_type,
    CASE WHEN s.department_id = 1 THEN 'completed' WHEN r5 % 100 < 84 THEN 'completed' WHEN r5 % 100 < 93 THEN 'cancelled'
         ELSE 'no-show' END AS status
  FROM staffed AS s JOIN doctors AS doc USING (doctor_id)
)
SELECT
  n,
  patient_id,
  doctor_id,
  appointment_date,
  CASE WHEN department_id = 1 THEN printf('%02d:%02d', r4 % 24, (r4 >> 5) % 60)
       ELSE printf('%02d:%02d', 8 + r4 % 9, ((r4 >> 5) % 3) * 20) END,
  visit_type,
  status,
  CASE WHEN status = 'cancelled' THEN 0
       WHEN status = 'no-show' THEN 25
       WHEN visit_type = 'emergency' THEN 180
       WHEN visit_type = 'first visit' THEN CASE WHEN grade = 'consultant' THEN 160 ELSE 120 END
       ELSE CASE WHEN grade = 'consultant' THEN 95 ELSE 75 END END
FROM typed
ORDER BY n;

-- -------------------------------------------------------------------------------------------- diagnoses

-- Primary diagnosis of every completed visit: a condition of the treating department, those listed first
-- in the conditions insert above being the most common.
CREATE TEMP TABLE primary_dx (appointment_id INTEGER PRIMARY KEY, icd10_code TEXT);
INSERT INTO temp.primary_dx
WITH visits AS (
  SELECT a.appointment_id, a.patient_id, doc.department_id, p.sex,
    (SELECT COUNT(*) FROM conditions AS c WHERE c.department_id = doc.department_id) AS options,
    (SELECT r FROM temp.rnd WHERE i = 40000 + a.appointment_id) / 8388608.0 AS u
  FROM appointments AS a JOIN doctors AS doc USING (doctor_id) JOIN patients AS p USING (patient_id)
  WHERE a.status = 'completed'
),
ranked AS (
  SELECT v.appointment_id, c.icd10_code,
    ROW_NUMBER() OVER (PARTITION BY v.appointment_id ORDER BY c.rowid) - 1 AS k,
    CAST(v.options * (0.3 * v.u + 0.7 * v.u * v.u) AS INTEGER) AS pick
  FROM visits AS v JOIN conditions AS c ON c.department_id = v.department_id
  -- breast cancer patients of this hospital are women
  WHERE NOT (c.icd10_code = 'C50' AND v.sex = 'M')
)
SELECT appointment_id, icd10_code FROM ranked WHERE k = min(pick, (SELECT COUNT(*) FROM ranked AS r2 WHERE r2.appointment_id = ranked.appointment_id) - 1)
ORDER BY appointment_id;

INSERT INTO diagnoses (diagnosis_id, appointment_id, icd10_code, is_primary)
SELECT NULL, appointment_id, icd10_code, is_primary FROM (
  SELECT appointment_id, icd10_code, 1 AS is_primary FROM temp.primary_dx
  UNION ALL
  SELECT a.appointment_id, cm.icd10_code, 0
  FROM appointments AS a
  JOIN temp.comorbidity AS cm USING (patient_id)
  JOIN temp.primary_dx AS px USING (appointment_id)
  WHERE cm.icd10_code IS NOT NULL AND cm.icd10_code <> px.icd10_code
    AND (SELECT r FROM temp.rnd WHERE i = 45000 + a.appointment_id) % 100 < 45
)
ORDER BY appointment_id, is_primary DESC;

-- ---------------------------------------------------------------------------------------- prescriptions

INSERT INTO prescriptions (prescription_id, appointment_id, medication_id, dose_mg, times_per_day, duration_days, start_date)
WITH rx AS (
  SELECT dx.appointment_id, dx.icd10_code, dx.is_primary, a.appointment_date, c.is_chronic,
    (SELECT r FROM temp.rnd WHERE i = 50000 + dx.diagnosis_id * 2) AS r0,
    (SELECT r FROM temp.rnd WHERE i = 50000 + dx.diagnosis_id * 2 + 1) AS r1
  FROM diagnoses AS dx JOIN appointments AS a USING (appointment_id) JOIN conditions AS c USING (icd10_code)
),
chosen AS (
  SELECT rx.*, t.medication_id, t.dose_mg, t.times_per_day
  FROM rx JOIN temp.treats AS t ON t.icd10_code = rx.icd10_code
   AND t.k = CASE WHEN r1 % 100 < 70 THEN 0 ELSE min(1, (SELECT MAX(k) FROM temp.treats AS t2 WHERE t2.icd10_code = rx.icd10_code)) END
  WHERE r0 % 100 < CASE WHEN is_primary = 1 THEN 68 ELSE 40 END
)
SELECT NULL, appointment_id, medication_id, dose_mg, times_per_day,
  CASE WHEN is_chronic = 1 THEN NULL ELSE 5 + (r1 >> 4) % 10 END,
  appointment_date
FROM chosen
ORDER BY appointment_id, is_primary DESC, icd10_code;

-- ------------------------------------------------------------------------------------------- admissions

INSERT INTO admissions (admission_id, patient_id, ward_id, attending_doctor_id, admission_type, primary_icd10,
                        admit_date, discharge_date, discharge_outcome)
WITH candidates AS (
  SELECT a.appointment_id, a.patient_id, a.doctor_id, a.appointment_date, a.visit_type, doc.department_id,
    px.icd10_code, c.department_id AS condition_department,
    (SELECT r FROM temp.rnd WHERE i = 60000 + a.appointment_id * 3) AS r0,
    (SELECT r FROM temp.rnd WHERE i = 60000 + a.appointment_id * 3 + 1) AS r1,
    (SELECT r FROM temp.rnd WHERE i = 60000 + a.appointment_id * 3 + 2) AS r2
  FROM appointments AS a
  JOIN doctors AS doc USING (doctor_id)
  JOIN temp.primary_dx AS px USING (appointment_id)
  JOIN conditions AS c ON c.icd10_code = px.icd10_code
),
admitted AS (
  SELECT cd.*,
    CASE
      WHEN icd10_code IN ('I21', 'S72') THEN 5 WHEN icd10_code = 'J18' AND r1 % 4 = 0 THEN 2
      WHEN icd10_code = 'I63' THEN 7
      WHEN department_id = 1 THEN CASE WHEN r1 % 100 < 70 THEN 1 ELSE 3 + r1 % 2 END
      WHEN department_id = 2 THEN 3 + r1 % 2
      WHEN department_id = 3 THEN 6
      WHEN department_id = 4 THEN 7
      WHEN department_id = 5 THEN 8
      WHEN department_id = 6 THEN CASE WHEN r1 % 3 = 0 THEN 13 ELSE 9 END
      WHEN department_id = 7 THEN 10
      WHEN department_id = 8 THEN 11
      ELSE 12 END AS ward_pick
  FROM candidates AS cd
  WHERE icd10_code IN ('O80', 'I21', 'I63', 'S72', 'K35')
     OR r0 % 100 < CASE department_id WHEN 1 THEN 30 WHEN 2 THEN 7 WHEN 3 THEN 10 WHEN 4 THEN 6 WHEN 5 THEN 12
                                      WHEN 6 THEN 35 WHEN 7 THEN 14 WHEN 8 THEN 6 ELSE 8 END
),
stayed AS (
  SELECT ad.*,
    CASE WHEN ward_pick = 5 AND icd10_code = 'S72' THEN 8 ELSE ward_pick END AS ward_id,
    CASE
      WHEN ward_pick = 13 THEN 0
      WHEN ward_pick = 12 THEN 1 + r2 % 3
      WHEN ward_pick = 1 THEN r2 % 2
      WHEN ward_pick IN (2, 5) THEN 3 + r2 % 12
      ELSE 1 + CAST(22 * ((r2 >> 4) / 524288.0) * ((r2 >> 4) / 524288.0) AS INTEGER) END AS stay_days
  FROM admitted AS ad
)
SELECT NULL, patient_id, ward_id, doctor_id,
  CASE WHEN visit_type = 'emergency' OR icd10_code IN ('I21', 'I63', 'K35') THEN 'emergency'
       WHEN r2 % 100 < 4 THEN 'transfer' ELSE 'elective' END,
  icd10_code,
  appointment_date,
  CASE WHEN date(appointment_date, '+' || stay_days || ' days') <= '2024-12-31'
       THEN date(appointment_date, '+' || stay_days || ' days') END,
  CASE WHEN date(appointment_date, '+' || stay_days || ' days') > '2024-12-31' THEN NULL
       WHEN icd10_code IN ('C34', 'I21', 'I63', 'I50') AND r1 % 100 < 9 THEN 'deceased'
       WHEN icd10_code IN ('S72', 'I63') AND r1 % 100 < 40 THEN 'rehabilitation'
       WHEN r1 % 100 < 6 THEN 'transferred'
       ELSE 'home' END
FROM stayed
ORDER BY appointment_id;

-- A patient seen again after a stay did not die during it.
UPDATE admissions SET discharge_outcome = 'home'
WHERE discharge_outcome = 'deceased'
  AND (EXISTS (SELECT 1 FROM appointments AS a WHERE a.patient_id = admissions.patient_id AND a.appointment_date >= admissions.discharge_date)
    OR EXISTS (SELECT 1 FROM admissions AS later WHERE later.patient_id = admissions.patient_id AND later.admit_date >= admissions.discharge_date AND later.admission_id <> admissions.admission_id));

-- ------------------------------------------------------------------------------------------ lab results

CREATE TEMP TABLE lab_catalog (k INTEGER PRIMARY KEY, test_name TEXT, unit TEXT, low REAL, high REAL, centre REAL, spread REAL);
INSERT INTO temp.lab_catalog VALUES
  (0, 'Haemoglobin', 'g/dL', 12.0, 17.5, 14.0, 5.0),
  (1, 'White cell count', '10^9/L', 4.0, 11.0, 7.0, 8.0),
  (2, 'C-reactive protein', 'mg/L', 0.0, 5.0, 4.0, 10.0),
  (3, 'HbA1c', '%', 4.0, 5.6, 5.3, 1.6),
  (4, 'Total cholesterol', 'mmol/L', 3.0, 5.2, 5.0, 3.0),
  (5, 'Creatinine', 'umol/L', 60.0, 110.0, 85.0, 60.0),
  (6, 'Troponin T', 'ng/L', 0.0, 14.0, 7.0, 12.0),
  (7, 'TSH', 'mIU/L', 0.4, 4.0, 2.3, 4.8);

INSERT INTO lab_results (lab_result_id, appointment_id, patient_id, test_name, result_value, unit, reference_low,
                         reference_high, sampled_date)
WITH panels AS (
  -- which tests each completed visit orders depends on the department and the diagnosis
  SELECT a.appointment_id, a.patient_id, a.appointment_date, doc.department_id, px.icd10_code,
    EXISTS (SELECT 1 FROM diagnoses AS d WHERE d.appointment_id = a.appointment_id AND d.icd10_code IN ('E11', 'O24')) AS diabetic,
    (SELECT r FROM temp.rnd WHERE i = 70000 + a.appointment_id) AS r0
  FROM appointments AS a JOIN doctors AS doc USING (doctor_id) JOIN temp.primary_dx AS px USING (appointment_id)
  WHERE doc.department_id IN (1, 2, 3, 4, 7, 9)
),
ordered AS (
  SELECT p.*, lc.*,
    (SELECT r FROM temp.rnd WHERE i = 80000 + p.appointment_id * 8 + lc.k) AS rv
  FROM panels AS p JOIN temp.lab_catalog AS lc
  WHERE p.r0 % 100 < 62
    AND (lc.k IN (0, 1, 2)
      OR (lc.k = 3 AND (p.diabetic OR p.department_id = 2 AND p.r0 % 3 = 0))
      OR (lc.k IN (4, 6) AND (p.department_id = 3 OR p.icd10_code = 'R07'))
      OR (lc.k = 5 AND p.department_id IN (2, 3, 7))
      OR (lc.k = 7 AND p.department_id = 2 AND p.r0 % 4 = 1))
)
SELECT NULL, appointment_id, patient_id, test_name,
  CASE WHEN rv % 100 < 2 THEN NULL -- haemolysed or lost sample
       ELSE round(max(0.0, centre + spread * ((rv >> 7) / 65536.0 - 0.5)
         + CASE WHEN k = 3 AND diabetic THEN 2.4 ELSE 0 END
         + CASE WHEN k = 6 AND icd10_code = 'I21' THEN 180 + (rv % 300) ELSE 0 END
         + CASE WHEN k IN (1, 2) AND icd10_code IN ('J18', 'K35', 'N39') THEN 6 + (rv % 40) ELSE 0 END
         + CASE WHEN k = 2 AND icd10_code IN ('J18', 'K35') THEN 40 + (rv % 120) ELSE 0 END
         - CASE WHEN k = 0 AND icd10_code IN ('C18', 'C34') THEN 2.5 ELSE 0 END), 1) END,
  unit, low, high, appointment_date
FROM ordered
ORDER BY appointment_id, k;
