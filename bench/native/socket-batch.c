/*
 * The bench's native I/O floor (lib/native-floor.mjs): what a Node.js client would do per
 * request if its reads and writes crossed into C once per batch instead of once per socket.
 * One epoll set of its own; `pollReads` reads every ready socket into one buffer in one call,
 * `writeMany` writes a batch of requests in one call. Measured beside the node:net floor and
 * wrk (bench/README.md): a design measured, not a part of Volley's engine.
 */
#include <errno.h>
#include <node_api.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <unistd.h>

#define MAX_EVENTS 256
#define READ_CHUNK 16384

static int32_t int_arg(napi_env env, napi_value value) {
  int32_t out = -1;
  napi_get_value_int32(env, value, &out);
  return out;
}

/* An Int32Array's elements and their count; NULL when `value` is not one. */
static int32_t* int32s(napi_env env, napi_value value, size_t* count) {
  napi_typedarray_type type;
  void* data = NULL;
  napi_value buffer;
  size_t offset;
  if (napi_get_typedarray_info(env, value, &type, count, &data, &buffer, &offset) != napi_ok ||
      type != napi_int32_array)
    return NULL;
  return data;
}

static napi_value int_value(napi_env env, int32_t n) {
  napi_value out;
  napi_create_int32(env, n, &out);
  return out;
}

static napi_value EpollCreate(napi_env env, napi_callback_info info) {
  (void)info;
  int fd = epoll_create1(EPOLL_CLOEXEC);
  return int_value(env, fd < 0 ? -errno : fd);
}

/* epollAdd(epfd, fd, id): reads of `fd` are reported as `id`. */
static napi_value EpollAdd(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 3) return int_value(env, -EINVAL);
  struct epoll_event event = {.events = EPOLLIN, .data = {.u32 = (uint32_t)int_arg(env, argv[2])}};
  int rc = epoll_ctl(int_arg(env, argv[0]), EPOLL_CTL_ADD, int_arg(env, argv[1]), &event);
  return int_value(env, rc < 0 ? -errno : 0);
}

/*
 * pollReads(epfd, fds: Int32Array by id, into: Buffer, out: Int32Array) -> count: every ready
 * socket read once into `into`, one after another; out holds [id, offset, bytes or -errno] each.
 */
static napi_value PollReads(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 4) return int_value(env, -EINVAL);
  size_t fd_count, out_count, into_length;
  int32_t* fds = int32s(env, argv[1], &fd_count);
  int32_t* out = int32s(env, argv[3], &out_count);
  void* into = NULL;
  if (fds == NULL || out == NULL || napi_get_buffer_info(env, argv[2], &into, &into_length) != napi_ok)
    return int_value(env, -EINVAL);
  size_t max = out_count / 3 < MAX_EVENTS ? out_count / 3 : MAX_EVENTS;
  struct epoll_event events[MAX_EVENTS];
  int ready = epoll_wait(int_arg(env, argv[0]), events, (int)max, 0);
  if (ready < 0) return int_value(env, -errno);
  size_t at = 0;
  int32_t count = 0;
  for (int i = 0; i < ready; i++) {
    uint32_t id = events[i].data.u32;
    if (id >= fd_count || into_length - at < READ_CHUNK) break; /* the rest stays ready */
    ssize_t n;
    do n = read(fds[id], (char*)into + at, READ_CHUNK);
    while (n < 0 && errno == EINTR);
    out[count * 3] = (int32_t)id;
    out[count * 3 + 1] = (int32_t)at;
    out[count * 3 + 2] = n < 0 ? -errno : (int32_t)n;
    count++;
    if (n > 0) at += (size_t)n;
  }
  return int_value(env, count);
}

/*
 * writeMany(fds, offsets, lengths: Int32Array, count, bytes: Buffer, results: Int32Array):
 * write(2) of bytes[offsets[i], +lengths[i]) to fds[i]; results[i] the bytes written or -errno.
 */
static napi_value WriteMany(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 6) return int_value(env, -EINVAL);
  size_t nf, no, nl, nr, length;
  int32_t* fds = int32s(env, argv[0], &nf);
  int32_t* offsets = int32s(env, argv[1], &no);
  int32_t* lengths = int32s(env, argv[2], &nl);
  int32_t* results = int32s(env, argv[5], &nr);
  int32_t count = int_arg(env, argv[3]);
  void* bytes = NULL;
  if (fds == NULL || offsets == NULL || lengths == NULL || results == NULL || count < 0 ||
      (size_t)count > nf || (size_t)count > no || (size_t)count > nl || (size_t)count > nr ||
      napi_get_buffer_info(env, argv[4], &bytes, &length) != napi_ok)
    return int_value(env, -EINVAL);
  for (int32_t i = 0; i < count; i++) {
    if (offsets[i] < 0 || lengths[i] < 0 || (size_t)offsets[i] + (size_t)lengths[i] > length) {
      results[i] = -EINVAL;
      continue;
    }
    ssize_t n;
    do n = write(fds[i], (char*)bytes + offsets[i], (size_t)lengths[i]);
    while (n < 0 && errno == EINTR);
    results[i] = n < 0 ? -errno : (int32_t)n;
  }
  return int_value(env, 0);
}

NAPI_MODULE_INIT() {
  napi_property_descriptor methods[] = {
      {"epollCreate", NULL, EpollCreate, NULL, NULL, NULL, napi_default, NULL},
      {"epollAdd", NULL, EpollAdd, NULL, NULL, NULL, napi_default, NULL},
      {"pollReads", NULL, PollReads, NULL, NULL, NULL, napi_default, NULL},
      {"writeMany", NULL, WriteMany, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof methods / sizeof methods[0], methods);
  return exports;
}
