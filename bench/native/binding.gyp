{
  "targets": [
    {
      "target_name": "socket_batch",
      "sources": ["socket-batch.c"],
      "cflags": ["-O2", "-Wall", "-Wextra"]
    }
  ]
}
