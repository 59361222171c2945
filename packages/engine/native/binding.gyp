{
  "targets": [
    {
      "target_name": "socket_reads",
      "sources": ["socket-reads.c"],
      "cflags": ["-O2", "-Wall", "-Wextra"]
    }
  ]
}
