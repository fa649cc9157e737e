help check
