/*
 * A thread's plain-TCP HTTP/1.1 reads, a batch at a time (see ../src/http/native-reads.ts).
 * The sockets stay node:net's (connect, writes, close); their reads move to an epoll set of
 * this poller's, which libuv watches as one descriptor. When it is readable, every ready socket
 * is read once, one after another, into one buffer, and JavaScript is called once for them all
 * with [id, offset, bytes or -errno] per read: one crossing into JavaScript per batch instead of
 * a callback per read (bench/README.md: 1.1-1.2x the node:net floor).
 */
#define NAPI_VERSION 8
#include <errno.h>
#include <node_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <uv.h>

#define MAX_EVENTS 256
/* Most a read takes; a read is made only while this much of the buffer is free. */
#define READ_CHUNK 65536

typedef struct {
  napi_env env;
  int epfd;
  uv_poll_t watcher;
  int closed;
  napi_ref on_reads;
  napi_ref resource;
  napi_async_context async;
  napi_ref buffer_ref;
  napi_ref meta_ref;
  napi_ref fds_ref;
  char* buffer;
  size_t buffer_length;
  int32_t* meta;
  size_t meta_length;
  int32_t* fds;
  size_t fd_count;
  napi_async_cleanup_hook_handle cleanup;
} Poller;

static napi_value int_value(napi_env env, int32_t n) {
  napi_value out;
  napi_create_int32(env, n, &out);
  return out;
}

static int32_t int_arg(napi_env env, napi_value value) {
  int32_t out = -1;
  napi_get_value_int32(env, value, &out);
  return out;
}

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

static Poller* poller_arg(napi_env env, napi_value value) {
  Poller* poller = NULL;
  if (napi_get_value_external(env, value, (void**)&poller) != napi_ok) return NULL;
  return poller != NULL && !poller->closed ? poller : NULL;
}

/*
 * The thread is ending (its environment is torn down): the watcher is closed, then the poller
 * freed once libuv says so, which Node waits for (an async cleanup hook). Its references go
 * with the environment.
 */
static void on_watcher_closed(uv_handle_t* handle) {
  Poller* poller = handle->data;
  napi_remove_async_cleanup_hook(poller->cleanup);
  free(poller);
}

static void cleanup_hook(napi_async_cleanup_hook_handle handle, void* data) {
  Poller* poller = data;
  poller->cleanup = handle;
  poller->closed = 1;
  uv_poll_stop(&poller->watcher);
  close(poller->epfd);
  uv_close((uv_handle_t*)&poller->watcher, on_watcher_closed);
}

/* Reads every ready socket once; the count of reads described in meta. */
static int32_t read_ready(Poller* poller) {
  size_t max = poller->meta_length / 3 < MAX_EVENTS ? poller->meta_length / 3 : MAX_EVENTS;
  struct epoll_event events[MAX_EVENTS];
  int ready = epoll_wait(poller->epfd, events, (int)max, 0);
  if (ready <= 0) return 0;
  size_t at = 0;
  int32_t count = 0;
  for (int i = 0; i < ready; i++) {
    uint32_t id = events[i].data.u32;
    if (id >= poller->fd_count || poller->fds[id] < 0) continue;
    /* Not room for another read: the rest stay ready (level-triggered) for the next turn. */
    if (poller->buffer_length - at < READ_CHUNK) break;
    ssize_t n;
    do n = read(poller->fds[id], poller->buffer + at, READ_CHUNK);
    while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    poller->meta[count * 3] = (int32_t)id;
    poller->meta[count * 3 + 1] = (int32_t)at;
    poller->meta[count * 3 + 2] = n < 0 ? -errno : (int32_t)n;
    count++;
    if (n > 0) at += (size_t)n;
  }
  return count;
}

static void on_readable(uv_poll_t* watcher, int status, int events) {
  (void)events;
  Poller* poller = watcher->data;
  if (poller->closed || status < 0) return;
  int32_t count = read_ready(poller);
  if (count == 0) return;
  napi_env env = poller->env;
  napi_handle_scope scope;
  napi_open_handle_scope(env, &scope);
  napi_value callback, resource, argv[1], result;
  napi_get_reference_value(env, poller->on_reads, &callback);
  napi_get_reference_value(env, poller->resource, &resource);
  argv[0] = int_value(env, count);
  /* A callback scope of its own: microtasks (a script's next step) run when it returns. */
  if (napi_make_callback(env, poller->async, resource, callback, 1, argv, &result) ==
      napi_pending_exception) {
    /* Thrown while reads were handled: an uncaught exception, as from node:net's callback. */
    napi_value error;
    napi_get_and_clear_last_exception(env, &error);
    napi_fatal_exception(env, error);
  }
  napi_close_handle_scope(env, scope);
}

/*
 * createPoller(buffer: Buffer, meta: Int32Array, fds: Int32Array, onReads(count)): reads land in
 * `buffer`; `fds[id]` is the descriptor registered as `id` (-1 for none). Throws when it fails.
 */
static napi_value CreatePoller(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  Poller* poller = calloc(1, sizeof(Poller));
  if (poller == NULL) {
    napi_throw_error(env, NULL, "out of memory");
    return NULL;
  }
  poller->env = env;
  void* buffer = NULL;
  napi_valuetype type;
  napi_typeof(env, argv[3], &type);
  if (argc < 4 || napi_get_buffer_info(env, argv[0], &buffer, &poller->buffer_length) != napi_ok ||
      (poller->meta = int32s(env, argv[1], &poller->meta_length)) == NULL ||
      (poller->fds = int32s(env, argv[2], &poller->fd_count)) == NULL || type != napi_function ||
      poller->buffer_length < READ_CHUNK) {
    free(poller);
    napi_throw_type_error(env, NULL, "createPoller(buffer >= 64 KiB, Int32Array, Int32Array, function)");
    return NULL;
  }
  poller->buffer = buffer;
  uv_loop_t* loop = NULL;
  poller->epfd = epoll_create1(EPOLL_CLOEXEC);
  if (poller->epfd < 0 || napi_get_uv_event_loop(env, &loop) != napi_ok ||
      uv_poll_init(loop, &poller->watcher, poller->epfd) != 0) {
    if (poller->epfd >= 0) close(poller->epfd);
    free(poller);
    napi_throw_error(env, NULL, "createPoller: epoll or libuv refused");
    return NULL;
  }
  poller->watcher.data = poller;
  napi_value resource, name;
  napi_create_object(env, &resource);
  napi_create_string_utf8(env, "VolleySocketReads", NAPI_AUTO_LENGTH, &name);
  napi_create_reference(env, resource, 1, &poller->resource);
  napi_async_init(env, resource, name, &poller->async);
  napi_create_reference(env, argv[0], 1, &poller->buffer_ref);
  napi_create_reference(env, argv[1], 1, &poller->meta_ref);
  napi_create_reference(env, argv[2], 1, &poller->fds_ref);
  napi_create_reference(env, argv[3], 1, &poller->on_reads);
  uv_poll_start(&poller->watcher, UV_READABLE, on_readable);
  /* The sockets keep the thread's loop alive, not this. */
  uv_unref((uv_handle_t*)&poller->watcher);
  napi_add_async_cleanup_hook(env, cleanup_hook, poller, NULL);
  napi_value external;
  napi_create_external(env, poller, NULL, NULL, &external);
  return external;
}

/* add(poller, fd, id): the socket's reads are this poller's from now on. 0 or -errno. */
static napi_value Add(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  Poller* poller = argc < 3 ? NULL : poller_arg(env, argv[0]);
  if (poller == NULL) return int_value(env, -EINVAL);
  int32_t id = int_arg(env, argv[2]);
  if (id < 0 || (size_t)id >= poller->fd_count) return int_value(env, -EINVAL);
  struct epoll_event event = {.events = EPOLLIN | EPOLLRDHUP, .data = {.u32 = (uint32_t)id}};
  int rc = epoll_ctl(poller->epfd, EPOLL_CTL_ADD, int_arg(env, argv[1]), &event);
  return int_value(env, rc < 0 ? -errno : 0);
}

/* remove(poller, fd): before the socket is closed. 0 or -errno. */
static napi_value Remove(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  Poller* poller = argc < 2 ? NULL : poller_arg(env, argv[0]);
  if (poller == NULL) return int_value(env, -EINVAL);
  int rc = epoll_ctl(poller->epfd, EPOLL_CTL_DEL, int_arg(env, argv[1]), NULL);
  return int_value(env, rc < 0 ? -errno : 0);
}

NAPI_MODULE_INIT() {
  napi_property_descriptor methods[] = {
      {"createPoller", NULL, CreatePoller, NULL, NULL, NULL, napi_default, NULL},
      {"add", NULL, Add, NULL, NULL, NULL, napi_default, NULL},
      {"remove", NULL, Remove, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof methods / sizeof methods[0], methods);
  return exports;
}
