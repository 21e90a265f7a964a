-- retail data: hand-written reference rows plus deterministic generated rows.
-- Randomness comes from temp.rnd, a hand-written LCG (glibc constants) run by a recursive CTE, so every
-- build produces exactly the same rows. Temp tables live outside the database file and vanish on close.

CREATE TEMP TABLE rnd (i INTEGER PRIMARY KEY, r INTEGER NOT NULL);
INSERT INTO temp.rnd (i, r)
WITH RECURSIVE lcg (i, s) AS (
  SELECT 0, 20240917
  UNION ALL
  SELECT i + 1, (s * 1103515245 + 12345) % 2147483648 FROM lcg WHERE i < 129999
)
SELECT i, s >> 8 FROM lcg; -- r is uniform in [0, 8388608); the low LCG bits are dropped as too regular

-- ------------------------------------------------------------------------------------- reference rows

INSERT INTO categories (category_id, name, parent_category_id) VALUES
  (1, 'Electronics', NULL),
  (2, 'Home & Kitchen', NULL),
  (3, 'Clothing', NULL),
  (4, 'Sports & Outdoors', NULL),
  (5, 'Toys & Games', NULL),
  (6, 'Laptops', 1),
  (7, 'Smartphones', 1),
  (8, 'Headphones & Audio', 1),
  (9, 'Cameras', 1),
  (10, 'Cookware', 2),
  (11, 'Furniture', 2),
  (12, 'Small Appliances', 2),
  (13, 'Men''s Clothing', 3),
  (14, 'Women''s Clothing', 3),
  (15, 'Shoes', 3),
  (16, 'Fitness', 4),
  (17, 'Camping', 4),
  (18, 'Cycling', 4),
  (19, 'Board Games', 5),
  (20, 'Building Sets', 5);

INSERT INTO suppliers (supplier_id, name, country, city, rating, partner_since) VALUES
  (1, 'Shenzhen Brightway Electronics', 'China', 'Shenzhen', 4.1, '2016-03-14'),
  (2, 'Nordic Home Supply AB', 'Sweden', 'Gothenburg', 4.6, '2017-08-01'),
  (3, 'Textiles Lusitania Lda', 'Portugal', 'Porto', 4.4, '2018-02-20'),
  (4, 'Hanoi Garment Works', 'Vietnam', 'Hanoi', 3.7, '2019-05-06'),
  (5, 'Bergmann Sport GmbH', 'Germany', 'Munich', 4.8, '2016-11-30'),
  (6, 'Pacific Gadget Traders', 'Taiwan', 'Taipei', 4.0, '2017-01-09'),
  (7, 'Milano Cucina SpA', 'Italy', 'Milan', 4.5, '2018-09-17'),
  (8, 'Great Lakes Outdoor Co', 'United States', 'Chicago', 3.9, '2020-04-02'),
  (9, 'Kraków Toy Factory', 'Poland', 'Kraków', 4.3, '2019-10-11'),
  (10, 'Yorkshire Furniture Makers', 'United Kingdom', 'Leeds', 4.2, '2021-01-25'),
  (11, 'Dongguan Precision Audio', 'China', 'Dongguan', 3.5, '2020-07-13'),
  (12, 'Atlas Wholesale', 'Netherlands', 'Rotterdam', NULL, '2023-06-01');

INSERT INTO stores (store_id, name, store_type, city, country, opened_date) VALUES
  (1, 'Online Shop', 'online', NULL, NULL, '2018-01-01'),
  (2, 'London Oxford Street', 'flagship', 'London', 'United Kingdom', '2018-05-12'),
  (3, 'Manchester Arndale', 'standard', 'Manchester', 'United Kingdom', '2019-03-02'),
  (4, 'Berlin Mitte', 'flagship', 'Berlin', 'Germany', '2019-09-21'),
  (5, 'Hamburg Outlet', 'outlet', 'Hamburg', 'Germany', '2020-06-15'),
  (6, 'Paris Rivoli', 'standard', 'Paris', 'France', '2021-04-10'),
  (7, 'Dublin Grafton Street', 'standard', 'Dublin', 'Ireland', '2022-02-28'),
  (8, 'Madrid Outlet', 'outlet', 'Madrid', 'Spain', '2023-03-18');

-- Per leaf category: product noun, typical price, weight, warranty, and which optional attributes apply.
CREATE TEMP TABLE cat_info (
  category_id INTEGER PRIMARY KEY, noun TEXT, base_price REAL, base_weight REAL, warranty INTEGER,
  has_energy INTEGER, has_size INTEGER, fragile INTEGER, hazardous INTEGER, shipping_class TEXT,
  material TEXT, min_age INTEGER, supplier_a INTEGER, supplier_b INTEGER, tax_class TEXT
);
INSERT INTO temp.cat_info VALUES
  (6, 'Laptop', 950, 1.9, 24, 1, 0, 1, 1, 'parcel', 'aluminium', NULL, 6, 1, 'standard'),
  (7, 'Smartphone', 620, 0.19, 24, 0, 0, 1, 1, 'parcel', 'glass', NULL, 1, 6, 'standard'),
  (8, 'Headphones', 140, 0.3, 12, 0, 0, 0, 1, 'parcel', 'plastic', NULL, 11, 1, 'standard'),
  (9, 'Camera', 780, 0.7, 24, 0, 0, 1, 1, 'parcel', 'magnesium alloy', NULL, 6, 11, 'standard'),
  (10, 'Frying Pan', 55, 1.2, 60, 0, 0, 0, 0, 'parcel', 'stainless steel', NULL, 7, 2, 'standard'),
  (11, 'Bookcase', 240, 28, NULL, 0, 0, 0, 0, 'freight', 'oak', NULL, 10, 2, 'standard'),
  (12, 'Coffee Maker', 130, 3.5, 24, 1, 0, 1, 0, 'bulky', 'plastic', NULL, 2, 7, 'standard'),
  (13, 'Shirt', 45, 0.25, NULL, 0, 1, 0, 0, 'letter', 'cotton', NULL, 3, 4, 'reduced'),
  (14, 'Dress', 70, 0.35, NULL, 0, 1, 0, 0, 'letter', 'viscose', NULL, 3, 4, 'reduced'),
  (15, 'Running Shoe', 95, 0.8, 6, 0, 1, 0, 0, 'parcel', 'mesh', NULL, 5, 4, 'reduced'),
  (16, 'Dumbbell Set', 80, 12, 24, 0, 0, 0, 0, 'bulky', 'cast iron', NULL, 5, 8, 'standard'),
  (17, 'Tent', 210, 3.2, 24, 0, 0, 0, 0, 'bulky', 'polyester', NULL, 8, 5, 'standard'),
  (18, 'Bike Helmet', 75, 0.4, 12, 0, 1, 0, 0, 'parcel', 'polycarbonate', NULL, 5, 8, 'standard'),
  (19, 'Board Game', 38, 1.1, NULL, 0, 0, 0, 0, 'parcel', 'cardboard', 8, 9, 12, 'reduced'),
  (20, 'Building Set', 60, 1.5, NULL, 0, 0, 0, 0, 'parcel', 'ABS plastic', 6, 9, 12, 'reduced');

CREATE TEMP TABLE brand_names (category_id INTEGER, k INTEGER, brand TEXT, PRIMARY KEY (category_id, k));
INSERT INTO temp.brand_names VALUES
  (6, 0, 'Voltix'), (6, 1, 'Northbook'), (6, 2, 'Lumen'),
  (7, 0, 'Voltix'), (7, 1, 'Orbita'), (7, 2, 'Kestrel'),
  (8, 0, 'Sonora'), (8, 1, 'Orbita'), (8, 2, 'Bassline'),
  (9, 0, 'Optikon'), (9, 1, 'Lumen'), (9, 2, 'Kestrel'),
  (10, 0, 'Ferro'), (10, 1, 'Cucina Viva'), (10, 2, 'Ferro'),
  (11, 0, 'Oakhaven'), (11, 1, 'Nordhem'), (11, 2, 'Oakhaven'),
  (12, 0, 'Brewmaster'), (12, 1, 'Nordhem'), (12, 2, 'Cucina Viva'),
  (13, 0, 'Harbour & Co'), (13, 1, 'Linea'), (13, 2, 'Basics'),
  (14, 0, 'Linea'), (14, 1, 'Maribel'), (14, 2, 'Basics'),
  (15, 0, 'Stride'), (15, 1, 'Bergmann'), (15, 2, 'Stride'),
  (16, 0, 'Bergmann'), (16, 1, 'IronCore'), (16, 2, 'IronCore'),
  (17, 0, 'Trailhead'), (17, 1, 'Bergmann'), (17, 2, 'Trailhead'),
  (18, 0, 'Velo'), (18, 1, 'Bergmann'), (18, 2, 'Velo'),
  (19, 0, 'Meeple Works'), (19, 1, 'Tabletop Guild'), (19, 2, 'Meeple Works'),
  (20, 0, 'Brickwell'), (20, 1, 'Brickwell'), (20, 2, 'Blokko');

CREATE TEMP TABLE colors (k INTEGER PRIMARY KEY, color TEXT);
INSERT INTO temp.colors VALUES (0, 'black'), (1, 'black'), (2, 'white'), (3, 'grey'), (4, 'navy'), (5, 'red'),
  (6, 'green'), (7, 'silver'), (8, 'blue'), (9, NULL);

CREATE TEMP TABLE first_names (k INTEGER PRIMARY KEY, name TEXT);
INSERT INTO temp.first_names VALUES
  (0, 'Oliver'), (1, 'Emma'), (2, 'Liam'), (3, 'Sophie'), (4, 'Noah'), (5, 'Mia'), (6, 'Lukas'), (7, 'Hannah'),
  (8, 'Jack'), (9, 'Chloe'), (10, 'Leon'), (11, 'Lea'), (12, 'Hugo'), (13, 'Camille'), (14, 'Lucas'),
  (15, 'Ines'), (16, 'Sean'), (17, 'Aoife'), (18, 'Pablo'), (19, 'Lucia'), (20, 'Finn'), (21, 'Ella'),
  (22, 'Matteo'), (23, 'Giulia'), (24, 'James'), (25, 'Amelia'), (26, 'Felix'), (27, 'Clara'), (28, 'Arthur'),
  (29, 'Zoe'), (30, 'Daniel'), (31, 'Sara'), (32, 'Ben'), (33, 'Laura'), (34, 'Tom'), (35, 'Nina');

CREATE TEMP TABLE last_names (k INTEGER PRIMARY KEY, name TEXT);
INSERT INTO temp.last_names VALUES
  (0, 'Smith'), (1, 'Müller'), (2, 'Jones'), (3, 'Schmidt'), (4, 'Brown'), (5, 'Martin'), (6, 'Murphy'),
  (7, 'García'), (8, 'Taylor'), (9, 'Fischer'), (10, 'Bernard'), (11, 'Kelly'), (12, 'López'), (13, 'Wilson'),
  (14, 'Weber'), (15, 'Dubois'), (16, 'Walsh'), (17, 'Fernández'), (18, 'Evans'), (19, 'Wagner'),
  (20, 'Thomas'), (21, 'Byrne'), (22, 'Rossi'), (23, 'Becker'), (24, 'Roberts'), (25, 'Moreau'),
  (26, 'Hoffmann'), (27, 'Clarke'), (28, 'Sánchez'), (29, 'Wright');

-- Customer cities with cumulative weights in per mille (UK and Germany dominate).
CREATE TEMP TABLE cities (lo INTEGER, hi INTEGER, city TEXT, country TEXT);
INSERT INTO temp.cities VALUES
  (0, 180, 'London', 'United Kingdom'), (180, 260, 'Manchester', 'United Kingdom'),
  (260, 310, 'Birmingham', 'United Kingdom'), (310, 350, 'Leeds', 'United Kingdom'),
  (350, 470, 'Berlin', 'Germany'), (470, 550, 'Hamburg', 'Germany'), (550, 610, 'Munich', 'Germany'),
  (610, 700, 'Paris', 'France'), (700, 740, 'Lyon', 'France'), (740, 820, 'Dublin', 'Ireland'),
  (820, 850, 'Cork', 'Ireland'), (850, 920, 'Madrid', 'Spain'), (920, 950, 'Barcelona', 'Spain'),
  (950, 980, 'Amsterdam', 'Netherlands'), (980, 1000, 'Rome', 'Italy');

-- -------------------------------------------------------------------------------------------- products

INSERT INTO products
WITH RECURSIVE n (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM n WHERE n < 320),
draw AS (
  SELECT n,
    (SELECT r FROM temp.rnd WHERE i = n * 10 + 0) AS r0, (SELECT r FROM temp.rnd WHERE i = n * 10 + 1) AS r1,
    (SELECT r FROM temp.rnd WHERE i = n * 10 + 2) AS r2, (SELECT r FROM temp.rnd WHERE i = n * 10 + 3) AS r3,
    (SELECT r FROM temp.rnd WHERE i = n * 10 + 4) AS r4, (SELECT r FROM temp.rnd WHERE i = n * 10 + 5) AS r5,
    (SELECT r FROM temp.rnd WHERE i = n * 10 + 6) AS r6, (SELECT r FROM temp.rnd WHERE i = n * 10 + 7) AS r7,
    (SELECT r FROM temp.rnd WHERE i = n * 10 + 8) AS r8, (SELECT r FROM temp.rnd WHERE i = n * 10 + 9) AS r9
  FROM n
),
base AS (
  SELECT d.*,
    -- clothing, shoes and electronics accessories are the most numerous categories
    CASE
      WHEN r0 % 100 < 9 THEN 6 WHEN r0 % 100 < 18 THEN 7 WHEN r0 % 100 < 28 THEN 8 WHEN r0 % 100 < 32 THEN 9
      WHEN r0 % 100 < 38 THEN 10 WHEN r0 % 100 < 42 THEN 11 WHEN r0 % 100 < 48 THEN 12
      WHEN r0 % 100 < 58 THEN 13 WHEN r0 % 100 < 69 THEN 14 WHEN r0 % 100 < 78 THEN 15
      WHEN r0 % 100 < 83 THEN 16 WHEN r0 % 100 < 87 THEN 17 WHEN r0 % 100 < 91 THEN 18
      WHEN r0 % 100 < 96 THEN 19 ELSE 20 END AS category_id,
    (r1 % 3) AS brand_k,
    (r2 / 8388608.0) AS u_price,
    (r3 % 1000) AS discontinue_draw,
    r4 % 2400 AS launch_offset
  FROM draw AS d
),
shaped AS (
  SELECT b.*, c.*,
    round(c.base_price * (0.55 + 1.3 * u_price * u_price)) - 0.01 AS price,
    date('2017-01-01', '+' || launch_offset || ' days') AS launched,
    discontinue_draw < 85 AS discontinued
  FROM base AS b JOIN temp.cat_info AS c USING (category_id)
)
SELECT
  n,
  printf('SKU-%02d-%05d', category_id, 1000 + n * 7),
  (SELECT brand FROM temp.brand_names AS bn WHERE bn.category_id = s.category_id AND bn.k = s.brand_k) || ' ' ||
    noun || ' ' || CASE r5 % 4 WHEN 0 THEN 'Pro ' WHEN 1 THEN 'Lite ' WHEN 2 THEN 'Max ' ELSE '' END || (100 + n),
  (SELECT brand FROM temp.brand_names AS bn WHERE bn.category_id = s.category_id AND bn.k = s.brand_k),
  category_id,
  CASE WHEN r5 % 10 < 7 THEN supplier_a ELSE supplier_b END,
  price,
  round(price * (0.42 + (r6 % 250) / 1000.0), 2),
  'EUR',
  tax_class,
  round(base_weight * (0.7 + (r7 % 600) / 1000.0), 2),
  CASE WHEN shipping_class = 'letter' THEN NULL ELSE round(10 + (r7 % 90) * base_weight / 2.0 + 5, 1) END,
  CASE WHEN shipping_class = 'letter' THEN NULL ELSE round(8 + (r8 % 40), 1) END,
  CASE WHEN shipping_class = 'letter' THEN NULL ELSE round(2 + (r9 % 30), 1) END,
  (SELECT color FROM temp.colors WHERE k = r6 % 10),
  CASE WHEN has_size = 0 THEN NULL
       WHEN category_id = 15 THEN 'EU ' || (37 + r8 % 10)
       WHEN category_id = 18 THEN CASE r8 % 3 WHEN 0 THEN 'S' WHEN 1 THEN 'M' ELSE 'L' END
       ELSE CASE r8 % 5 WHEN 0 THEN 'XS' WHEN 1 THEN 'S' WHEN 2 THEN 'M' WHEN 3 THEN 'L' ELSE 'XL' END END,
  material,
  CASE WHEN discontinued THEN 0 WHEN r9 % 100 < 6 THEN 0 ELSE (r9 % 100) * (r9 % 100) / 20 + r8 % 7 END,
  CASE WHEN base_price > 300 THEN 5 WHEN base_price > 100 THEN 15 ELSE 30 END,
  CASE WHEN discontinued OR r3 % 50 = 7 THEN 0 ELSE 1 END,
  discontinued,
  launched,
  CASE WHEN discontinued THEN min(date(launched, '+' || (200 + r4 % 900) || ' days'), '2024-12-31') END,
  warranty,
  CASE WHEN has_energy = 0 THEN NULL
       ELSE CASE WHEN r1 % 10 < 3 THEN 'A' WHEN r1 % 10 < 6 THEN 'B' WHEN r1 % 10 < 8 THEN 'C' WHEN r1 % 10 < 9 THEN 'D' ELSE 'E' END END,
  CASE WHEN r2 % 100 < 42 THEN 'China' WHEN r2 % 100 < 55 THEN 'Vietnam' WHEN r2 % 100 < 67 THEN 'Germany'
       WHEN r2 % 100 < 76 THEN 'Italy' WHEN r2 % 100 < 84 THEN 'Poland' WHEN r2 % 100 < 91 THEN 'Portugal'
       WHEN r2 % 100 < 96 THEN 'United States' ELSE 'United Kingdom' END,
  shipping_class,
  min_age + CASE WHEN min_age IS NULL THEN 0 ELSE (r7 % 3) * 2 END,
  fragile,
  CASE WHEN hazardous = 1 AND r4 % 3 > 0 THEN 1 ELSE 0 END,
  printf('40%011d', (n * 7919 + 104729) % 100000000000),
  NULL, -- rating_avg and rating_count are filled from reviews below
  0,
  (r0 / 1000) * (r0 / 1000) / 3000 + r1 % 200,
  CASE WHEN category_id IN (13, 14, 15) THEN 60 WHEN category_id IN (6, 7, 9) THEN 14 ELSE 30 END
FROM shaped AS s
ORDER BY n;

-- ------------------------------------------------------------------------------------------- customers

INSERT INTO customers
WITH RECURSIVE n (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM n WHERE n < 700),
draw AS (
  SELECT n,
    (SELECT r FROM temp.rnd WHERE i = 10000 + n * 8 + 0) AS r0, (SELECT r FROM temp.rnd WHERE i = 10000 + n * 8 + 1) AS r1,
    (SELECT r FROM temp.rnd WHERE i = 10000 + n * 8 + 2) AS r2, (SELECT r FROM temp.rnd WHERE i = 10000 + n * 8 + 3) AS r3,
    (SELECT r FROM temp.rnd WHERE i = 10000 + n * 8 + 4) AS r4, (SELECT r FROM temp.rnd WHERE i = 10000 + n * 8 + 5) AS r5
  FROM n
),
named AS (
  SELECT d.*, f.name AS first_name, l.name AS last_name
  FROM draw AS d
  JOIN temp.first_names AS f ON f.k = d.r0 % 36
  JOIN temp.last_names AS l ON l.k = d.r1 % 30
)
SELECT
  n,
  first_name,
  last_name,
  lower(replace(replace(replace(replace(replace(first_name || '.' || last_name, 'ü', 'ue'), 'í', 'i'), 'á', 'a'), 'é', 'e'), 'ó', 'o'))
    || n || CASE r2 % 4 WHEN 0 THEN '@mailbox.com' WHEN 1 THEN '@post.eu' WHEN 2 THEN '@webmail.net' ELSE '@inbox.org' END,
  c.city,
  c.country,
  date('2019-01-01', '+' || (r3 % 2100) || ' days'),
  CASE WHEN r4 % 100 < 14 THEN NULL ELSE date('1950-01-01', '+' || (r4 % 20000) || ' days') END,
  CASE WHEN r5 % 100 < 61 THEN 'bronze' WHEN r5 % 100 < 86 THEN 'silver' WHEN r5 % 100 < 97 THEN 'gold' ELSE 'platinum' END,
  CASE WHEN r2 % 100 < 55 THEN 1 ELSE 0 END
FROM named
JOIN temp.cities AS c ON (named.r2 >> 4) % 1000 >= c.lo AND (named.r2 >> 4) % 1000 < c.hi
ORDER BY n;

-- ---------------------------------------------------------------------------------------------- orders

INSERT INTO orders
WITH RECURSIVE n (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM n WHERE n < 2400),
draw AS (
  SELECT n,
    (SELECT r FROM temp.rnd WHERE i = 20000 + n * 6 + 0) AS r0, (SELECT r FROM temp.rnd WHERE i = 20000 + n * 6 + 1) AS r1,
    (SELECT r FROM temp.rnd WHERE i = 20000 + n * 6 + 2) AS r2, (SELECT r FROM temp.rnd WHERE i = 20000 + n * 6 + 3) AS r3,
    (SELECT r FROM temp.rnd WHERE i = 20000 + n * 6 + 4) AS r4, (SELECT r FROM temp.rnd WHERE i = 20000 + n * 6 + 5) AS r5
  FROM n
),
placed AS (
  SELECT d.*,
    -- a few loyal customers place many orders: customer id skewed towards low numbers
    1 + CAST(700 * ((r0 / 8388608.0) * (r0 / 8388608.0) * 0.6 + (r0 / 8388608.0) * 0.4) AS INTEGER) AS customer_id,
    CASE WHEN r1 % 100 < 56 THEN 1 ELSE 2 + r1 % 7 END AS store_pick
  FROM draw AS d
),
dated AS (
  SELECT p.*, c.signup_date,
    -- physical stores only sell after they open
    p.store_pick AS store_id,
    date(c.signup_date, '+' || (p.r2 % (1 + julianday('2024-12-31') - julianday(c.signup_date))) || ' days') AS order_date
  FROM placed AS p
  JOIN customers AS c USING (customer_id)
)
SELECT
  n,
  customer_id,
  -- a physical store only sells after it opens; earlier purchases went through the online shop
  CASE WHEN (SELECT opened_date FROM stores WHERE stores.store_id = dated.store_id) > order_date THEN 1 ELSE store_id END,
  order_date,
  CASE
    WHEN r3 % 100 < 7 THEN 'cancelled'
    -- the data is a snapshot taken at the end of 2024: recent online orders are still on their way
    WHEN order_date >= '2024-12-15' AND store_id = 1 THEN CASE WHEN r3 % 2 = 0 THEN 'pending' ELSE 'shipped' END
    WHEN r3 % 100 < 13 AND store_id = 1 AND order_date < '2024-12-01' THEN 'returned'
    ELSE 'delivered' END,
  CASE
    WHEN store_id <> 1 AND r4 % 100 < 18 THEN 'cash'
    WHEN r4 % 100 < 64 THEN 'card'
    WHEN r4 % 100 < 84 THEN 'paypal'
    WHEN r4 % 100 < 93 THEN 'bank_transfer'
    ELSE 'gift_card' END,
  CASE WHEN store_id <> 1 THEN 0 WHEN r5 % 10 < 7 THEN 4.99 WHEN r5 % 10 < 9 THEN 9.99 ELSE 0 END,
  CASE WHEN r5 % 100 < 86 THEN NULL
       WHEN r5 % 100 < 91 THEN 'WELCOME10'
       WHEN r5 % 100 < 95 THEN 'SUMMER20'
       WHEN r5 % 100 < 98 AND substr(order_date, 6, 2) = '11' THEN 'BLACKFRIDAY'
       ELSE 'VIP15' END
FROM dated
ORDER BY n;

-- -------------------------------------------------------------------------------------------- order items

INSERT INTO order_items
WITH lines (line_no) AS (VALUES (1), (2), (3), (4)),
draw AS (
  SELECT o.order_id, o.discount_code, l.line_no,
    (SELECT r FROM temp.rnd WHERE i = 40000 + o.order_id * 4) AS line_count_draw,
    (SELECT r FROM temp.rnd WHERE i = 50000 + (o.order_id * 4 + l.line_no) * 3 + 0) AS r0,
    (SELECT r FROM temp.rnd WHERE i = 50000 + (o.order_id * 4 + l.line_no) * 3 + 1) AS r1,
    (SELECT r FROM temp.rnd WHERE i = 50000 + (o.order_id * 4 + l.line_no) * 3 + 2) AS r2
  FROM orders AS o CROSS JOIN lines AS l
),
kept AS (
  SELECT * FROM draw
  WHERE line_no <= CASE WHEN line_count_draw % 100 < 52 THEN 1 WHEN line_count_draw % 100 < 80 THEN 2
                        WHEN line_count_draw % 100 < 93 THEN 3 ELSE 4 END
),
picked AS (
  -- popular products sell more: product id skewed, then shifted so popularity is not just low ids
  SELECT k.*, 1 + (CAST(320 * (0.3 * (r0 / 8388608.0) + 0.7 * (r0 / 8388608.0) * (r0 / 8388608.0)) AS INTEGER) * 37) % 320 AS product_id
  FROM kept AS k
)
SELECT
  p.order_id,
  p.line_no,
  p.product_id,
  CASE WHEN r1 % 100 < 72 THEN 1 WHEN r1 % 100 < 91 THEN 2 ELSE 3 + r1 % 3 END,
  pr.list_price,
  CASE WHEN p.discount_code = 'WELCOME10' THEN 10 WHEN p.discount_code = 'SUMMER20' THEN 20
       WHEN p.discount_code = 'BLACKFRIDAY' THEN 30 WHEN p.discount_code = 'VIP15' THEN 15
       WHEN r2 % 100 < 8 THEN 5 ELSE 0 END
FROM picked AS p JOIN products AS pr USING (product_id)
ORDER BY p.order_id, p.line_no;

-- ---------------------------------------------------------------------------------------------- shipments

INSERT INTO shipments (shipment_id, order_id, carrier, shipped_date, delivered_date)
WITH draw AS (
  SELECT o.*,
    (SELECT r FROM temp.rnd WHERE i = 90000 + o.order_id * 3 + 0) AS r0,
    (SELECT r FROM temp.rnd WHERE i = 90000 + o.order_id * 3 + 1) AS r1
  FROM orders AS o
  WHERE o.store_id = 1 AND o.status IN ('delivered', 'returned', 'shipped')
)
SELECT
  NULL,
  order_id,
  CASE WHEN r0 % 100 < 38 THEN 'DHL' WHEN r0 % 100 < 63 THEN 'UPS' WHEN r0 % 100 < 84 THEN 'DPD' ELSE 'Royal Mail' END,
  date(order_date, '+' || (r1 % 3) || ' days'),
  CASE WHEN status = 'shipped' THEN NULL
       ELSE date(order_date, '+' || (r1 % 3 + 1 + (r1 >> 4) % 6 + CASE WHEN r0 % 100 >= 84 THEN 2 ELSE 0 END) || ' days') END
FROM draw
ORDER BY order_id;

-- ------------------------------------------------------------------------------------------------ returns

INSERT INTO returns (return_id, order_id, line_no, return_date, reason, refund_amount)
SELECT
  NULL,
  oi.order_id,
  oi.line_no,
  date(coalesce(s.delivered_date, o.order_date), '+' || (2 + (SELECT r FROM temp.rnd WHERE i = 110000 + oi.order_id * 4 + oi.line_no) % 20) || ' days'),
  CASE
    WHEN p.category_id IN (13, 14, 15) AND (SELECT r FROM temp.rnd WHERE i = 100000 + oi.order_id * 4 + oi.line_no) % 10 < 6 THEN 'wrong size'
    WHEN (SELECT r FROM temp.rnd WHERE i = 100000 + oi.order_id * 4 + oi.line_no) % 10 < 3 THEN 'damaged in transit'
    WHEN (SELECT r FROM temp.rnd WHERE i = 100000 + oi.order_id * 4 + oi.line_no) % 10 < 5 THEN 'defective'
    WHEN (SELECT r FROM temp.rnd WHERE i = 100000 + oi.order_id * 4 + oi.line_no) % 10 < 7 THEN 'not as described'
    ELSE 'changed mind' END,
  round(oi.quantity * oi.unit_price * (1 - oi.discount_pct / 100.0), 2)
FROM order_items AS oi
JOIN orders AS o USING (order_id)
JOIN products AS p USING (product_id)
LEFT JOIN shipments AS s USING (order_id)
WHERE o.status = 'returned'
  AND (oi.line_no = 1 OR (SELECT r FROM temp.rnd WHERE i = 100000 + oi.order_id * 4 + oi.line_no) % 2 = 0)
ORDER BY oi.order_id, oi.line_no;

-- ------------------------------------------------------------------------------------------------ reviews

CREATE TEMP TABLE review_titles (rating INTEGER, k INTEGER, title TEXT, PRIMARY KEY (rating, k));
INSERT INTO temp.review_titles VALUES
  (5, 0, 'Absolutely love it'), (5, 1, 'Best purchase this year'), (5, 2, 'Exceeded expectations'), (5, 3, NULL),
  (4, 0, 'Very good, minor niggles'), (4, 1, 'Solid value'), (4, 2, 'Does the job well'), (4, 3, NULL),
  (3, 0, 'Okay for the price'), (3, 1, 'Average'), (3, 2, 'Mixed feelings'), (3, 3, NULL),
  (2, 0, 'Disappointing'), (2, 1, 'Not as pictured'), (2, 2, 'Broke after a month'), (2, 3, NULL),
  (1, 0, 'Waste of money'), (1, 1, 'Arrived broken'), (1, 2, 'Would not recommend'), (1, 3, NULL);

-- Verified reviews: about a third of delivered order lines get reviewed by the buyer.
INSERT INTO reviews (review_id, product_id, customer_id, rating, review_date, title, verified_purchase)
WITH draw AS (
  SELECT oi.order_id, oi.line_no, oi.product_id, o.customer_id, o.order_date, p.category_id,
    (SELECT r FROM temp.rnd WHERE i = 112000 + (oi.order_id * 4 + oi.line_no) * 2 + 0) AS r0,
    (SELECT r FROM temp.rnd WHERE i = 112000 + (oi.order_id * 4 + oi.line_no) * 2 + 1) AS r1
  FROM order_items AS oi JOIN orders AS o USING (order_id) JOIN products AS p USING (product_id)
  WHERE o.status = 'delivered'
),
rated AS (
  SELECT d.*,
    -- audio gear from the low-rated supplier scores worse
    CASE WHEN category_id = 8 AND r1 % 100 < 30 THEN 1 + r1 % 3
         WHEN r1 % 100 < 44 THEN 5 WHEN r1 % 100 < 70 THEN 4 WHEN r1 % 100 < 82 THEN 3
         WHEN r1 % 100 < 90 THEN 2 ELSE 1 END AS rating
  FROM draw AS d
  WHERE r0 % 100 < 34
)
SELECT NULL, product_id, customer_id, rating,
  -- written after delivery (at most 10 days after the order), never after the snapshot date
  min(date(order_date, '+' || (11 + r0 % 40) || ' days'), '2024-12-31'),
  (SELECT title FROM temp.review_titles AS t WHERE t.rating = rated.rating AND t.k = (r1 >> 6) % 4),
  1
FROM rated
ORDER BY order_id, line_no;

-- Unverified reviews from visitors who bought elsewhere.
INSERT INTO reviews (review_id, product_id, customer_id, rating, review_date, title, verified_purchase)
WITH RECURSIVE n (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM n WHERE n < 90),
draw AS (
  SELECT n,
    (SELECT r FROM temp.rnd WHERE i = 125000 + n * 4 + 0) AS r0, (SELECT r FROM temp.rnd WHERE i = 125000 + n * 4 + 1) AS r1,
    (SELECT r FROM temp.rnd WHERE i = 125000 + n * 4 + 2) AS r2, (SELECT r FROM temp.rnd WHERE i = 125000 + n * 4 + 3) AS r3
  FROM n
)
SELECT NULL, 1 + r0 % 320, 1 + r1 % 700,
  CASE WHEN r2 % 100 < 40 THEN 5 WHEN r2 % 100 < 55 THEN 4 WHEN r2 % 100 < 65 THEN 3 WHEN r2 % 100 < 75 THEN 2 ELSE 1 END,
  date('2020-01-01', '+' || (r3 % 1800) || ' days'),
  NULL,
  0
FROM draw
ORDER BY n;

-- No product sells before its launch: move the launch before the first order where needed.
UPDATE products SET launch_date = (
  SELECT min(products.launch_date, date(MIN(o.order_date), '-' || (7 + products.product_id % 60) || ' days'))
  FROM order_items AS oi JOIN orders AS o USING (order_id)
  WHERE oi.product_id = products.product_id
);

UPDATE products SET
  rating_count = (SELECT COUNT(*) FROM reviews WHERE reviews.product_id = products.product_id),
  rating_avg = (SELECT round(AVG(rating), 2) FROM reviews WHERE reviews.product_id = products.product_id);
