capture --run 2024_05_01_09_00_00 --service-addr localhost:1 http://127.0.0.1:1/
