fetch --max-size 4 -o build/golden-fetch http://localhost:1/
