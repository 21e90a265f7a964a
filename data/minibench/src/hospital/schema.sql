-- hospital: a regional general hospital with outpatient clinics, wards, a pharmacy and a laboratory.

CREATE TABLE departments (
  department_id INTEGER PRIMARY KEY,
  name          TEXT NOT NULL UNIQUE,
  building      TEXT NOT NULL,
  floor         INTEGER NOT NULL,
  phone_ext     TEXT NOT NULL
);

CREATE TABLE doctors (
  doctor_id     INTEGER PRIMARY KEY,
  first_name    TEXT NOT NULL,
  last_name     TEXT NOT NULL,
  title         TEXT NOT NULL,
  department_id INTEGER NOT NULL REFERENCES departments (department_id),
  grade         TEXT NOT NULL,
  hire_date     DATE NOT NULL,
  leave_date    DATE
);

CREATE TABLE wards (
  ward_id       INTEGER PRIMARY KEY,
  name          TEXT NOT NULL UNIQUE,
  department_id INTEGER NOT NULL REFERENCES departments (department_id),
  ward_type     TEXT NOT NULL,
  bed_count     INTEGER NOT NULL
);

CREATE TABLE patients (
  patient_id      INTEGER PRIMARY KEY,
  first_name      TEXT NOT NULL,
  last_name       TEXT NOT NULL,
  sex             TEXT NOT NULL,
  birth_date      DATE NOT NULL,
  blood_type      TEXT,
  city            TEXT NOT NULL,
  insurance_type  TEXT NOT NULL,
  registered_date DATE NOT NULL,
  smoker          INTEGER
);

CREATE TABLE conditions (
  icd10_code    TEXT PRIMARY KEY,
  name          TEXT NOT NULL,
  body_system   TEXT NOT NULL,
  is_chronic    INTEGER NOT NULL,
  department_id INTEGER NOT NULL REFERENCES departments (department_id)
);

CREATE TABLE medications (
  medication_id         INTEGER PRIMARY KEY,
  name                  TEXT NOT NULL UNIQUE,
  drug_class            TEXT NOT NULL,
  form                  TEXT NOT NULL,
  unit_cost             REAL NOT NULL,
  requires_prescription INTEGER NOT NULL
);

CREATE TABLE appointments (
  appointment_id   INTEGER PRIMARY KEY,
  patient_id       INTEGER NOT NULL REFERENCES patients (patient_id),
  doctor_id        INTEGER NOT NULL REFERENCES doctors (doctor_id),
  appointment_date DATE NOT NULL,
  start_time       TEXT NOT NULL,
  visit_type       TEXT NOT NULL,
  status           TEXT NOT NULL,
  fee              REAL NOT NULL
);

CREATE TABLE diagnoses (
  diagnosis_id   INTEGER PRIMARY KEY,
  appointment_id INTEGER NOT NULL REFERENCES appointments (appointment_id),
  icd10_code     TEXT NOT NULL REFERENCES conditions (icd10_code),
  is_primary     INTEGER NOT NULL
);

CREATE TABLE prescriptions (
  prescription_id INTEGER PRIMARY KEY,
  appointment_id  INTEGER NOT NULL REFERENCES appointments (appointment_id),
  medication_id   INTEGER NOT NULL REFERENCES medications (medication_id),
  dose_mg         REAL NOT NULL,
  times_per_day   INTEGER NOT NULL,
  duration_days   INTEGER,
  start_date      DATE NOT NULL
);

CREATE TABLE admissions (
  admission_id        INTEGER PRIMARY KEY,
  patient_id          INTEGER NOT NULL REFERENCES patients (patient_id),
  ward_id             INTEGER NOT NULL REFERENCES wards (ward_id),
  attending_doctor_id INTEGER NOT NULL REFERENCES doctors (doctor_id),
  admission_type      TEXT NOT NULL,
  primary_icd10       TEXT NOT NULL REFERENCES conditions (icd10_code),
  admit_date          DATE NOT NULL,
  discharge_date      DATE,
  discharge_outcome   TEXT
);

CREATE TABLE lab_results (
  lab_result_id  INTEGER PRIMARY KEY,
  appointment_id INTEGER NOT NULL REFERENCES appointments (appointment_id),
  patient_id     INTEGER NOT NULL REFERENCES patients (patient_id),
  test_name      TEXT NOT NULL,
  result_value   REAL,
  unit           TEXT NOT NULL,
  reference_low  REAL NOT NULL,
  reference_high REAL NOT NULL,
  sampled_date   DATE NOT NULL
);
