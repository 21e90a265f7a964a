-- retail: an online and high-street store selling electronics, home goods, clothing and sport equipment.

CREATE TABLE categories (
  category_id        INTEGER PRIMARY KEY,
  name               TEXT NOT NULL UNIQUE,
  parent_category_id INTEGER REFERENCES categories (category_id)
);

CREATE TABLE suppliers (
  supplier_id  INTEGER PRIMARY KEY,
  name         TEXT NOT NULL,
  country      TEXT NOT NULL,
  city         TEXT NOT NULL,
  rating       REAL,
  partner_since DATE NOT NULL
);

CREATE TABLE stores (
  store_id    INTEGER PRIMARY KEY,
  name        TEXT NOT NULL,
  store_type  TEXT NOT NULL,
  city        TEXT,
  country     TEXT,
  opened_date DATE NOT NULL
);

CREATE TABLE products (
  product_id        INTEGER PRIMARY KEY,
  sku               TEXT NOT NULL UNIQUE,
  name              TEXT NOT NULL,
  brand             TEXT NOT NULL,
  category_id       INTEGER NOT NULL REFERENCES categories (category_id),
  supplier_id       INTEGER NOT NULL REFERENCES suppliers (supplier_id),
  list_price        REAL NOT NULL,
  cost_price        REAL NOT NULL,
  currency          TEXT NOT NULL,
  tax_class         TEXT NOT NULL,
  weight_kg         REAL,
  length_cm         REAL,
  width_cm          REAL,
  height_cm         REAL,
  color             TEXT,
  size_label        TEXT,
  material          TEXT,
  stock_quantity    INTEGER NOT NULL,
  reorder_level     INTEGER NOT NULL,
  is_active         INTEGER NOT NULL,
  is_discontinued   INTEGER NOT NULL,
  launch_date       DATE NOT NULL,
  discontinued_date DATE,
  warranty_months   INTEGER,
  energy_class      TEXT,
  origin_country    TEXT NOT NULL,
  shipping_class    TEXT NOT NULL,
  min_age           INTEGER,
  is_fragile        INTEGER NOT NULL,
  is_hazardous      INTEGER NOT NULL,
  barcode           TEXT NOT NULL,
  rating_avg        REAL,
  rating_count      INTEGER NOT NULL,
  view_count        INTEGER NOT NULL,
  return_window_days INTEGER NOT NULL
);

CREATE TABLE customers (
  customer_id      INTEGER PRIMARY KEY,
  first_name       TEXT NOT NULL,
  last_name        TEXT NOT NULL,
  email            TEXT NOT NULL UNIQUE,
  city             TEXT NOT NULL,
  country          TEXT NOT NULL,
  signup_date      DATE NOT NULL,
  birth_date       DATE,
  loyalty_tier     TEXT NOT NULL,
  marketing_opt_in INTEGER NOT NULL
);

CREATE TABLE orders (
  order_id       INTEGER PRIMARY KEY,
  customer_id    INTEGER NOT NULL REFERENCES customers (customer_id),
  store_id       INTEGER NOT NULL REFERENCES stores (store_id),
  order_date     DATE NOT NULL,
  status         TEXT NOT NULL,
  payment_method TEXT NOT NULL,
  shipping_fee   REAL NOT NULL,
  discount_code  TEXT
);

CREATE TABLE order_items (
  order_id     INTEGER NOT NULL REFERENCES orders (order_id),
  line_no      INTEGER NOT NULL,
  product_id   INTEGER NOT NULL REFERENCES products (product_id),
  quantity     INTEGER NOT NULL,
  unit_price   REAL NOT NULL,
  discount_pct REAL NOT NULL,
  PRIMARY KEY (order_id, line_no)
);

CREATE TABLE shipments (
  shipment_id    INTEGER PRIMARY KEY,
  order_id       INTEGER NOT NULL UNIQUE REFERENCES orders (order_id),
  carrier        TEXT NOT NULL,
  shipped_date   DATE NOT NULL,
  delivered_date DATE
);

CREATE TABLE reviews (
  review_id         INTEGER PRIMARY KEY,
  product_id        INTEGER NOT NULL REFERENCES products (product_id),
  customer_id       INTEGER NOT NULL REFERENCES customers (customer_id),
  rating            INTEGER NOT NULL,
  review_date       DATE NOT NULL,
  title             TEXT,
  verified_purchase INTEGER NOT NULL
);

CREATE TABLE returns (
  return_id     INTEGER PRIMARY KEY,
  order_id      INTEGER NOT NULL,
  line_no       INTEGER NOT NULL,
  return_date   DATE NOT NULL,
  reason        TEXT NOT NULL,
  refund_amount REAL NOT NULL,
  FOREIGN KEY (order_id, line_no) REFERENCES order_items (order_id, line_no)
);
