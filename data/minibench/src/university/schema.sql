-- University registrar: departments, staff, catalogue, timetable, students and their enrolments.
CREATE TABLE departments (
  dept_id       INTEGER PRIMARY KEY,
  dept_code     TEXT NOT NULL UNIQUE,
  dept_name     TEXT NOT NULL,
  faculty       TEXT NOT NULL,
  building      TEXT NOT NULL,
  founded_year  INTEGER NOT NULL,
  annual_budget REAL NOT NULL,
  chair_id      INTEGER REFERENCES instructors(instructor_id)
);

CREATE TABLE instructors (
  instructor_id INTEGER PRIMARY KEY,
  first_name    TEXT NOT NULL,
  last_name     TEXT NOT NULL,
  dept_id       INTEGER NOT NULL REFERENCES departments(dept_id),
  academic_rank TEXT NOT NULL,
  hire_date     TEXT NOT NULL,
  salary        REAL NOT NULL,
  email         TEXT NOT NULL UNIQUE,
  office_phone  TEXT
);

CREATE TABLE classrooms (
  room_id     INTEGER PRIMARY KEY,
  building    TEXT NOT NULL,
  room_number TEXT NOT NULL,
  capacity    INTEGER NOT NULL,
  room_type   TEXT NOT NULL,
  UNIQUE (building, room_number)
);

CREATE TABLE courses (
  course_id   INTEGER PRIMARY KEY,
  course_code TEXT NOT NULL UNIQUE,
  title       TEXT NOT NULL,
  dept_id     INTEGER NOT NULL REFERENCES departments(dept_id),
  credits     INTEGER NOT NULL,
  level       INTEGER NOT NULL,
  has_lab     INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE prerequisites (
  course_id        INTEGER NOT NULL REFERENCES courses(course_id),
  prereq_course_id INTEGER NOT NULL REFERENCES courses(course_id),
  min_grade        TEXT NOT NULL DEFAULT 'D',
  PRIMARY KEY (course_id, prereq_course_id)
);

CREATE TABLE terms (
  term_id    INTEGER PRIMARY KEY,
  term_name  TEXT NOT NULL UNIQUE,
  season     TEXT NOT NULL,
  year       INTEGER NOT NULL,
  start_date TEXT NOT NULL,
  end_date   TEXT NOT NULL
);

CREATE TABLE sections (
  section_id     INTEGER PRIMARY KEY,
  course_id      INTEGER NOT NULL REFERENCES courses(course_id),
  term_id        INTEGER NOT NULL REFERENCES terms(term_id),
  section_number INTEGER NOT NULL,
  instructor_id  INTEGER REFERENCES instructors(instructor_id),
  room_id        INTEGER REFERENCES classrooms(room_id),
  meeting_days   TEXT NOT NULL,
  start_time     TEXT NOT NULL,
  capacity       INTEGER NOT NULL,
  UNIQUE (course_id, term_id, section_number)
);

CREATE TABLE students (
  student_id       INTEGER PRIMARY KEY,
  first_name       TEXT NOT NULL,
  last_name        TEXT NOT NULL,
  gender           TEXT,
  birth_date       TEXT NOT NULL,
  email            TEXT NOT NULL UNIQUE,
  admission_year   INTEGER NOT NULL,
  major_dept_id    INTEGER REFERENCES departments(dept_id),
  advisor_id       INTEGER REFERENCES instructors(instructor_id),
  home_country     TEXT NOT NULL,
  home_state       TEXT,
  scholarship_usd  REAL,
  graduation_date  TEXT
);

CREATE TABLE enrollments (
  enrollment_id INTEGER PRIMARY KEY,
  student_id    INTEGER NOT NULL REFERENCES students(student_id),
  section_id    INTEGER NOT NULL REFERENCES sections(section_id),
  enrolled_on   TEXT NOT NULL,
  status        TEXT NOT NULL,
  grade         TEXT,
  grade_points  REAL,
  UNIQUE (student_id, section_id)
);
