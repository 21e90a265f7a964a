DROP TABLE regression_alerts;
DROP TABLE regression_checks;
DROP TABLE schedule_fires;
