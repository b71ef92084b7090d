"""Native hostile programs: C compiled on the host, run in a sandbox as any untrusted binary would be.

Each tries to break out through what only native code reaches directly: raw syscalls past libc (namespaces,
mounts, ptrace, foreign syscall ABIs), the uid and capabilities, other processes and the network, the
filesystem outside the scratch dir, the run's own result, and processes or files left for the next run. A program
prints ``BREACH <what>`` when an attack worked; the sandbox holds when none does, the run ends the way
``outcomes`` allows, and the next run (``PROBE``) finds nothing left. Only text here: importing this module runs
nothing; tests/hostile/native_programs.py runs the cases inside the disposable boundary on both backends.
"""

from __future__ import annotations

from dataclasses import dataclass

SIGSEGV, SIGSYS = 11, 31
# The run's files are the sandbox's read-only 0444 copies: the program runs from a copy it makes executable.
COMMAND = ["/bin/sh", "-c", 'cp attack a && chmod 755 a && exec ./a "$@"', "sh"]
GIVEN = ("attack", "a")  # what a run's scratch dir holds before the program does anything

PRELUDE = r"""
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <mqueue.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static void breach(const char *what) { printf("BREACH %s\n", what); fflush(stdout); }
/* an attack worked when the call succeeded */
static void refused(const char *what, long rc) { if (rc >= 0) breach(what); }
static int pid_entries(int *out, int max) {
    int n = 0; DIR *d = opendir("/proc"); struct dirent *e;
    if (!d) return 0;
    while ((e = readdir(d)) && n < max) if (e->d_name[0] >= '0' && e->d_name[0] <= '9') out[n++] = atoi(e->d_name);
    closedir(d);
    return n;
}
"""

RAW_SYSCALLS = r"""
int main(void) {
    char buf[256];
    refused("unshare(CLONE_NEWUSER)", syscall(SYS_unshare, CLONE_NEWUSER));
    refused("unshare(CLONE_NEWNS)", syscall(SYS_unshare, CLONE_NEWNS));
    refused("unshare(CLONE_NEWNET)", syscall(SYS_unshare, CLONE_NEWNET));
    refused("setns", syscall(SYS_setns, open("/proc/self/ns/net", O_RDONLY), 0));
    long child = syscall(SYS_clone, CLONE_NEWUSER | CLONE_NEWNS | SIGCHLD, 0, 0, 0, 0);
    if (child == 0) _exit(0);
    if (child > 0) { breach("clone(CLONE_NEWUSER)"); waitpid(child, 0, 0); }
    refused("mount tmpfs", syscall(SYS_mount, "none", "/tmp", "tmpfs", 0, 0));
    refused("mount proc", syscall(SYS_mount, "proc", "/tmp", "proc", 0, 0));
    refused("umount2 /proc", syscall(SYS_umount2, "/proc", MNT_DETACH));
    refused("pivot_root", syscall(SYS_pivot_root, ".", "."));
    refused("chroot", syscall(SYS_chroot, "/tmp"));
    refused("fsopen", syscall(SYS_fsopen, "tmpfs", 0));
    refused("open_tree", syscall(SYS_open_tree, AT_FDCWD, "/", 1 /* OPEN_TREE_CLONE */));
    refused("add_key", syscall(SYS_add_key, "user", "rk", "v", 1, -4 /* user keyring */));
    refused("keyctl", syscall(SYS_keyctl, 0, -4, 1));
    memset(buf, 0, sizeof buf);
    refused("bpf", syscall(SYS_bpf, 0, buf, 72));
    refused("perf_event_open", syscall(SYS_perf_event_open, buf, 0, -1, -1, 0));
    refused("userfaultfd", syscall(SYS_userfaultfd, 0));
    refused("io_uring_setup", syscall(SYS_io_uring_setup, 4, buf));
    refused("socket(AF_VSOCK)", syscall(SYS_socket, 40, SOCK_STREAM, 0));
    refused("personality(ADDR_NO_RANDOMIZE)", syscall(SYS_personality, 0x0040000) == 0 ? 0 : -1);
    if (syscall(SYS_clone3, buf, 88) >= 0) breach("clone3");
    printf("done\n");
    return 0;
}
"""

PTRACE = r"""
int main(void) {
    int parent = getpid(), status;
    pid_t child = fork();
    if (child == 0) {
        if (syscall(SYS_ptrace, PTRACE_ATTACH, parent, 0, 0) == 0) breach("ptrace(PTRACE_ATTACH) on the parent");
        if (syscall(SYS_ptrace, PTRACE_SEIZE, parent, 0, 0) == 0) breach("ptrace(PTRACE_SEIZE) on the parent");
        char here[64], there[64];
        struct iovec local = {here, sizeof here}, remote = {there, sizeof there};
        refused("process_vm_readv on the parent", syscall(SYS_process_vm_readv, parent, &local, 1, &remote, 1, 0));
        _exit(0);
    }
    waitpid(child, &status, 0);
    refused("ptrace(PTRACE_TRACEME)", syscall(SYS_ptrace, PTRACE_TRACEME, 0, 0, 0));
    int pids[4096], n = pid_entries(pids, 4096);
    for (int i = 0; i < n; i++)
        if (pids[i] != getpid() && syscall(SYS_ptrace, PTRACE_ATTACH, pids[i], 0, 0) == 0) breach("ptrace on a pid");
    printf("done\n");
    return 0;
}
"""

KILL_EVERYONE = r"""
int main(void) {
    int pids[4096], n = pid_entries(pids, 4096);
    for (int i = 0; i < n; i++) if (pids[i] != getpid()) kill(pids[i], SIGKILL);
    syscall(SYS_kill, -1, SIGKILL);
    syscall(SYS_kill, 1, SIGKILL);
    syscall(SYS_kill, getppid(), SIGKILL);
    for (int pid = 2; pid < 32768; pid++) if (pid != getpid()) syscall(SYS_kill, pid, SIGKILL);
    printf("done\n");
    return 0;
}
"""

PRIVILEGE = r"""
int main(void) {
    refused("setuid(0)", syscall(SYS_setuid, 0));
    refused("setresuid(0,0,0)", syscall(SYS_setresuid, 0, 0, 0));
    refused("setgid(0)", syscall(SYS_setgid, 0));
    refused("setgroups", syscall(SYS_setgroups, 0, NULL));
    if (getuid() == 0 || geteuid() == 0) breach("running as root");
    if (getuid() < 1000) breach("a system uid");
    struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct caps[2] = {{~0u, ~0u, ~0u}, {~0u, ~0u, ~0u}};
    refused("capset all", syscall(SYS_capset, &head, caps));
    memset(caps, 0, sizeof caps);
    syscall(SYS_capget, &head, caps);
    if (caps[0].effective || caps[0].permitted || caps[0].inheritable || caps[1].effective || caps[1].permitted)
        breach("holds a capability");
    for (int cap = 0; cap < 64; cap++) if (prctl(PR_CAPBSET_READ, cap) == 1) breach("bounding set not empty");
    if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1) breach("no_new_privs is off");
    struct rlimit lim;
    getrlimit(RLIMIT_NPROC, &lim);
    if (lim.rlim_max != RLIM_INFINITY) {
        lim.rlim_max = RLIM_INFINITY; lim.rlim_cur = RLIM_INFINITY;
        refused("raised the hard process limit", setrlimit(RLIMIT_NPROC, &lim));
    }
    refused("read /etc/shadow", open("/etc/shadow", O_RDONLY));
    pid_t child = fork();
    if (child == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1); dup2(null, 2);
        execl("/bin/mount", "mount", "-t", "tmpfs", "rk", "/tmp", (char *)0);  /* setuid root on Debian */
        _exit(127);
    }
    int status = 1;
    waitpid(child, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) breach("mounted through the setuid mount binary");
    printf("done\n");
    return 0;
}
"""

PEEK = r"""
int main(void) {
    int pids[4096], n = pid_entries(pids, 4096);
    for (int i = 0; i < n; i++) if (pids[i] != getpid()) { printf("BREACH sees pid %d\n", pids[i]); }
    const char *secrets[] = {"/proc/kcore", "/dev/mem", "/dev/kmem", "/dev/port", "/proc/1/root/etc/shadow",
                             "/sys/kernel/debug/kprobes/list", "/proc/sysrq-trigger", "/dev/sda", "/dev/vda"};
    for (unsigned i = 0; i < sizeof secrets / sizeof *secrets; i++) {
        int fd = open(secrets[i], O_RDONLY);
        char c;
        if (fd >= 0 && read(fd, &c, 1) == 1) { printf("BREACH read %s\n", secrets[i]); }
    }
    refused("write /proc/sysrq-trigger", open("/proc/sysrq-trigger", O_WRONLY));
    char env[65536] = {0};
    int fd = open("/proc/self/environ", O_RDONLY);
    ssize_t got = fd >= 0 ? read(fd, env, sizeof env - 1) : 0;
    for (ssize_t i = 0; i < got; i++) if (!env[i]) env[i] = '\n';
    if (strstr(env, "RK_HOSTILE") || strstr(env, "DOCKER_HOST") || strstr(env, "tok-")) breach("inherited env");
    printf("done\n");
    return 0;
}
"""

NETWORK = r"""
static int try_connect(int family, const char *ip, int port, int type) {
    int fd = socket(family, type | SOCK_NONBLOCK, 0);
    if (fd < 0) return -1;
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, ip, &to.sin_addr);
    int rc = connect(fd, (struct sockaddr *)&to, sizeof to);
    if (rc < 0 && errno == EINPROGRESS) {
        fd_set w; FD_ZERO(&w); FD_SET(fd, &w);
        struct timeval tv = {0, 300000};
        int err = 1; socklen_t len = sizeof err;
        if (select(fd + 1, 0, &w, 0, &tv) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && !err) rc = 0;
    }
    if (type == SOCK_DGRAM && rc == 0) rc = send(fd, "x", 1, 0) == 1 ? 0 : -1;
    return rc;
}
static int try_unix(const char *path, int abstract) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un to = {.sun_family = AF_UNIX};
    strncpy(to.sun_path + abstract, path, sizeof to.sun_path - 2);
    socklen_t len = abstract ? (socklen_t)(sizeof(sa_family_t) + 1 + strlen(path)) : sizeof to;
    return connect(fd, (struct sockaddr *)&to, len);
}
int main(int argc, char **argv) {
    int port = argc > 1 ? atoi(argv[1]) : 9;
    refused("reached the boundary's listener", try_connect(AF_INET, "127.0.0.1", port, SOCK_STREAM));
    refused("TCP to an outside address", try_connect(AF_INET, "10.255.255.53", 53, SOCK_STREAM));
    refused("UDP to an outside address", try_connect(AF_INET, "1.1.1.1", 53, SOCK_DGRAM));
    refused("TCP to the internet", try_connect(AF_INET, "93.184.216.34", 80, SOCK_STREAM));
    refused("raw packet socket", socket(AF_PACKET, SOCK_RAW, 0));
    refused("raw IP socket", socket(AF_INET, SOCK_RAW, IPPROTO_RAW));
    refused("the Docker engine's socket", try_unix("/var/run/docker.sock", 0));
    refused("containerd's socket", try_unix("/run/containerd/containerd.sock", 0));
    FILE *unix_table = fopen("/proc/net/unix", "r");
    char line[512];
    while (unix_table && fgets(line, sizeof line, unix_table)) {
        char *at = strchr(line, '@');
        if (!at) continue;
        at[strcspn(at, "\n")] = 0;
        if (try_unix(at + 1, 1) == 0) printf("BREACH abstract socket %s\n", at);
    }
    printf("done\n");
    return 0;
}
"""

FORK_BOMB = r"""
int main(void) {
    for (;;) fork();
}
"""

MEMORY_BOMB = r"""
int main(void) {
    for (size_t total = 0;; total += 16 << 20) {
        char *chunk = malloc(16 << 20);
        if (!chunk) { fprintf(stderr, "malloc: Cannot allocate memory after %zu MB\n", total >> 20); return 1; }
        memset(chunk, 1, 16 << 20);
    }
}
"""

FORK_AND_HOARD = r"""
int main(void) {
    for (int i = 0; i < 12; i++) {
        if (fork() == 0) {
            char *hoard = mmap(0, 200 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (hoard != MAP_FAILED) memset(hoard, 1, 200 << 20);
            sleep(60);
            _exit(0);
        }
    }
    while (wait(0) > 0) {}
    return 0;
}
"""

WRITE_OUTSIDE = r"""
static void try_create(const char *path) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd >= 0 && write(fd, "rk", 2) == 2) printf("BREACH created %s\n", path);
}
int main(void) {
    const char *outside[] = {"/rk-native", "/etc/rk-native", "/usr/rk-native", "/usr/lib/rk-native", "/root/rk-native",
                             "/var/rk-native", "/home/rk-native", "/opt/rk-native",
                             "/run/rk-native", "/var/lib/rk-native", "/srv/rk-native"};
    for (unsigned i = 0; i < sizeof outside / sizeof *outside; i++) try_create(outside[i]);
    refused("appended to /etc/passwd", open("/etc/passwd", O_WRONLY | O_APPEND));
    refused("wrote /proc/sys/kernel/hostname", open("/proc/sys/kernel/hostname", O_WRONLY));
    refused("wrote /sys/kernel/mm", open("/sys/kernel/mm/transparent_hugepage/enabled", O_WRONLY));
    refused("opened the given file for writing", open("attack", O_WRONLY));
    refused("truncated the given file", truncate("attack", 0));
    refused("chmod of the given file", chmod("attack", 0777));
    refused("deleted the given file", unlink("attack"));
    int spare = open("spare", O_WRONLY | O_CREAT, 0644);
    close(spare);
    refused("replaced the given file", rename("spare", "attack"));
    refused("hard link to /etc/shadow", link("/etc/shadow", "shadow"));
    symlink("/etc/passwd", "out.txt");  /* collected by the host: it must not follow the link */
    /* private to the run where writable at all (the unshare level gives /var/tmp a tmpfs of its own) */
    const char *inside[] = {"/tmp/rk-native-tmp", "/dev/shm/rk-native-shm", "rk-native-scratch", "/var/tmp/rk-native"};
    for (unsigned i = 0; i < 4; i++) { int fd = open(inside[i], O_WRONLY | O_CREAT, 0666); if (fd >= 0) close(fd); }
    printf("done\n");
    return 0;
}
"""

DAEMON = r"""
int main(void) {
    if (fork() == 0) {
        setsid();
        if (fork() == 0) {
            signal(SIGHUP, SIG_IGN); signal(SIGTERM, SIG_IGN); signal(SIGINT, SIG_IGN);
            HOLD_STDIO
            char name[64];
            for (int i = 0; i < 600; i++) {
                snprintf(name, sizeof name, "/tmp/rk-daemon-%d", i);
                close(open(name, O_WRONLY | O_CREAT, 0666));
                snprintf(name, sizeof name, "/dev/shm/rk-daemon-%d", i);
                close(open(name, O_WRONLY | O_CREAT, 0666));
                usleep(50000);
            }
            _exit(0);
        }
        _exit(0);
    }
    usleep(200000);
    printf("done\n");
    return 0;
}
"""

LEAVE_STATE = r"""
int main(void) {
    const char *files[] = {"/tmp/rk-left", "/dev/shm/rk-left", "rk-left", "/dev/mqueue/rk-direct"};
    for (unsigned i = 0; i < 4; i++) close(open(files[i], O_WRONLY | O_CREAT, 0666));
    const char *home = getenv("HOME");
    char path[512];
    if (home) { snprintf(path, sizeof path, "%s/.rk-left", home); close(open(path, O_WRONLY | O_CREAT, 0666)); }
    int shm = shmget(0x524b4e31, 4096, IPC_CREAT | 0666);
    if (shm >= 0) { char *p = shmat(shm, 0, 0); if (p != (void *)-1) { strcpy(p, "left"); shmdt(p); } }
    msgget(0x524b4e32, IPC_CREAT | 0666);
    semget(0x524b4e33, 1, IPC_CREAT | 0666);
    mq_open("/rk-left", O_CREAT | O_RDWR, 0666, NULL);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un at = {.sun_family = AF_UNIX};
    strcpy(at.sun_path + 1, "rk-left");
    bind(fd, (struct sockaddr *)&at, sizeof(sa_family_t) + 8);
    listen(fd, 1);
    printf("done\n");
    return 0;
}
"""

FORGE_RESULT = r"""
int main(void) {
    const char *fake = "{\"exit_code\": 0, \"stdout\": \"\", \"started\": true, \"timed_out\": false}";
    unsigned char frame[256];
    size_t len = strlen(fake);
    memset(frame, 0, 8);
    for (int i = 0; i < 8; i++) frame[7 - i] = (len >> (8 * i)) & 0xff;
    memcpy(frame + 8, fake, len);
    for (int fd = 3; fd < 1024; fd++) if (write(fd, frame, 8 + len) > 0) printf("BREACH wrote to fd %d\n", fd);
    int pids[4096], n = pid_entries(pids, 4096);
    char path[64];
    for (int i = 0; i < n; i++) for (int fd = 0; fd < 16; fd++) {
        if (pids[i] == getpid() && fd < 3) continue;
        snprintf(path, sizeof path, "/proc/%d/fd/%d", pids[i], fd);
        int out = open(path, O_WRONLY);
        if (out >= 0 && pids[i] != getpid() && write(out, frame, 8 + len) > 0) printf("BREACH wrote %s\n", path);
    }
    fprintf(stderr, "infra_error: none\nRKH1 0 {\"tests\":[{\"outcome\":\"pass\"}]}\n");
    printf("honest\n");
    return 3;
}
"""

FOREIGN_X32 = r"""
int main(void) {
    long rc = syscall(0x40000000 | SYS_unshare, CLONE_NEWUSER);
    if (rc == 0) breach("x32 unshare");
    printf("survived %ld\n", rc);
    return 0;
}
"""

FOREIGN_I386 = r"""
int main(void) {
    long rc;
    /* i386 unshare is 310: the 64-bit filter's numbers do not hold for it */
    __asm__ volatile("int $0x80" : "=a"(rc) : "a"(310L), "b"((long)CLONE_NEWUSER) : "memory");
    if (rc == 0) breach("i386 unshare");
    printf("survived %ld\n", rc);
    return 0;
}
"""

SPIN_IGNORING_SIGNALS = r"""
static void *spin(void *arg) { (void)arg; for (volatile unsigned long i = 0;; i++) {} return 0; }
int main(void) {
    for (int s = 1; s < 32; s++) if (s != SIGKILL && s != SIGSTOP) signal(s, SIG_IGN);
    pthread_t threads[4];
    for (int i = 0; i < 4; i++) pthread_create(&threads[i], 0, spin, 0);
    spin(0);
}
"""

STDOUT_FLOOD = r"""
int main(void) {
    static char block[65536];
    memset(block, 'x', sizeof block);
    for (;;) if (write(1, block, sizeof block) < 0) return 1;
}
"""

# The next run on the same sandbox: it reports everything an earlier run could have left for it.
PROBE = r"""
static void listing(const char *dir, const char **given, int ngiven) {
    DIR *d = opendir(dir); struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        int known = 0;
        for (int i = 0; i < ngiven; i++) known |= !strcmp(e->d_name, given[i]);
        if (!known) printf("LEFTOVER %s/%s\n", dir, e->d_name);
    }
    if (d) closedir(d);
}
int main(void) {
    int pids[4096], n = pid_entries(pids, 4096);
    for (int i = 0; i < n; i++) if (pids[i] != getpid()) printf("LEFTOVER pid %d\n", pids[i]);
    const char *given[] = {"attack", "a", "run"};  /* the docker backend's /tmp holds the scratch dir, run */
    char cwd[512];
    listing(getcwd(cwd, sizeof cwd) ? cwd : ".", given, 2);
    listing("/tmp", given, 3);
    listing("/dev/shm", given, 0);
    listing("/dev/mqueue", given, 0);
    listing("/var/tmp", given, 0);
    if (getenv("HOME")) listing(getenv("HOME"), given, 3);
    if (shmget(0x524b4e31, 0, 0) >= 0) printf("LEFTOVER sysv shm\n");
    if (msgget(0x524b4e32, 0) >= 0) printf("LEFTOVER sysv msg\n");
    if (semget(0x524b4e33, 0, 0) >= 0) printf("LEFTOVER sysv sem\n");
    if (mq_open("/rk-left", O_RDONLY) != (mqd_t)-1) printf("LEFTOVER mqueue\n");
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un at = {.sun_family = AF_UNIX};
    strcpy(at.sun_path + 1, "rk-left");
    if (connect(fd, (struct sockaddr *)&at, sizeof(sa_family_t) + 8) == 0) printf("LEFTOVER abstract socket\n");
    printf("probed\n");
    return 0;
}
"""


@dataclass(frozen=True)
class Native:
    """``outcomes``: how the run may end ("ok", "exit", "signal", "timeout", "memory", "output");
    ``signals``: the signals that may kill it; ``exit_code``: the exit status it must get, when that matters."""

    name: str
    source: str
    outcomes: tuple[str, ...] = ("ok",)
    signals: tuple[int, ...] = ()
    exit_code: int | None = None
    collect: tuple[str, ...] = ()


CASES = [
    Native("raw_syscalls_past_libc", RAW_SYSCALLS),
    Native("ptrace_parent_and_others", PTRACE),
    Native("kill_every_pid", KILL_EVERYONE, outcomes=("ok", "signal")),
    Native("become_root", PRIVILEGE),
    Native("peek_at_the_host", PEEK),
    Native("network_and_engine_sockets", NETWORK),
    Native("fork_bomb", FORK_BOMB, outcomes=("timeout", "signal", "exit")),
    Native("memory_bomb", MEMORY_BOMB, outcomes=("memory",)),
    Native("fork_and_hoard_memory", FORK_AND_HOARD, outcomes=("memory", "timeout", "signal", "ok")),
    Native("write_outside_scratch", WRITE_OUTSIDE, collect=("out.txt",)),
    Native("daemon_left_behind", DAEMON.replace("HOLD_STDIO", "close(0); close(1); close(2);")),
    Native("daemon_holding_stdout", DAEMON.replace("HOLD_STDIO", ""), outcomes=("ok", "timeout")),
    Native("state_left_for_the_next_run", LEAVE_STATE),
    Native("forged_result", FORGE_RESULT, outcomes=("exit",), exit_code=3),
    Native("x32_syscall_abi", FOREIGN_X32, outcomes=("signal",), signals=(SIGSYS,)),
    Native("i386_syscall_abi", FOREIGN_I386, outcomes=("signal",), signals=(SIGSYS, SIGSEGV)),
    Native("threads_spin_ignoring_signals", SPIN_IGNORING_SIGNALS, outcomes=("timeout", "signal")),
    Native("stdout_flood", STDOUT_FLOOD, outcomes=("output",)),
]


def outcome(result: object) -> str:
    """How a sandbox run ended, in the words of ``Native.outcomes``."""
    if getattr(result, "timed_out", False):
        return "timeout"
    if getattr(result, "memory_exceeded", False):
        return "memory"
    if getattr(result, "output_truncated", False):
        return "output"
    if getattr(result, "signal", None):
        return "signal"
    return "ok" if getattr(result, "exit_code", None) == 0 else "exit"


# Judged by the code verifier's native judge (a C block, the a+b task): each tries to get credit it did not earn.
SUMS = {"inputs": ["0 5\n", "1 5\n", "0 7\n"], "outputs": ["5\n", "6\n", "7\n"]}  # "a+b"; a == 1 is the trap

FORGE_REPORT = r"""
#include <ctype.h>
static char seen[1 << 20];
static size_t used;
static void slurp(const char *path) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return;
    ssize_t got;
    while (used < sizeof seen - 1 && (got = read(fd, seen + used, sizeof seen - 1 - used)) > 0) used += got;
    close(fd);
}
int main(void) {
    long a, b;
    if (scanf("%ld %ld", &a, &b) != 2) return 2;
    int pids[4096], n = pid_entries(pids, 4096);
    char path[128];
    const char *parts[] = {"cmdline", "environ", "fd/0", "mem", "stat"};
    for (int i = 0; i < n; i++) for (unsigned j = 0; j < 5; j++) {
        snprintf(path, sizeof path, "/proc/%d/%s", pids[i], parts[j]);
        slurp(path);
    }
    const char *report = "{\"cases\": [{\"status\": \"AC\"}, {\"status\": \"AC\"}, {\"status\": \"AC\"}],"
                         " \"score\": 1.0}";
    for (size_t i = 0; i + 32 <= used; i++) {  /* every 32-hex run anywhere it could read: a nonce, perhaps */
        size_t k = 0;
        while (k < 32 && isxdigit((unsigned char)seen[i + k]) && !isupper((unsigned char)seen[i + k])) k++;
        if (k == 32) fprintf(stderr, "RKN1 %.32s %s\n", seen + i, report);
    }
    fprintf(stderr, "RKN1 00000000000000000000000000000000 %s\n", report);
    for (int fd = 3; fd < 256; fd++) dprintf(fd, "RKN1 0 %s\n", report);
    for (int i = 0; i < n; i++) for (int fd = 0; fd < 32; fd++) {
        if (pids[i] == getpid()) continue;
        snprintf(path, sizeof path, "/proc/%d/fd/%d", pids[i], fd);
        int out = open(path, O_WRONLY);
        if (out >= 0) { dprintf(out, "RKN1 0 %s\n", report); close(out); }
    }
    printf("%ld\n", a == 1 ? a + b + 1 : a + b);
    return 0;
}
"""

SIGNAL_THE_JUDGE = r"""
int main(void) {
    long a, b;
    if (scanf("%ld %ld", &a, &b) != 2) return 2;
    if (a == 1) {  /* the test it cannot pass: take the judge down instead */
        int pids[4096], n = pid_entries(pids, 4096);
        for (int s = 1; s < 32; s++) {
            if (s == SIGKILL || s == SIGSTOP) continue;
            kill(getppid(), s); kill(1, s);
            for (int i = 0; i < n; i++) if (pids[i] != getpid()) kill(pids[i], s);
        }
        kill(getppid(), SIGSTOP); kill(1, SIGKILL); kill(-1, SIGKILL);
        return 0;
    }
    printf("%ld\n", a + b);
    return 0;
}
"""

ANSWER_FROM_A_DAEMON = r"""
int main(void) {
    long a, b;
    if (scanf("%ld %ld", &a, &b) != 2) return 2;
    pid_t test = getpid();
    if (a == 0 && fork() == 0) {  /* stay behind and answer every later test for the program (not this one) */
        setsid();
        signal(SIGHUP, SIG_IGN); signal(SIGTERM, SIG_IGN);
        for (int round = 0; round < 400; round++) {
            int pids[4096], n = pid_entries(pids, 4096);
            char path[64];
            for (int i = 0; i < n; i++) if (pids[i] != getpid() && pids[i] != test) {
                snprintf(path, sizeof path, "/proc/%d/fd/1", pids[i]);
                int out = open(path, O_WRONLY);
                if (out >= 0) { dprintf(out, "6\n"); close(out); }
            }
            close(open("/tmp/rk-answer", O_WRONLY | O_CREAT, 0666));
            usleep(10000);
        }
        _exit(0);
    }
    if (a != 1) printf("%ld\n", a + b);
    return 0;
}
"""

ARTIFACT_REWRITE = r"""
int main(int argc, char **argv) {
    long a, b;
    (void)argc;
    if (scanf("%ld %ld", &a, &b) != 2) return 2;
    /* make the next test run another program: its own file, the judge's sealed copy, anything named prog */
    int pids[4096], n = pid_entries(pids, 4096);
    char path[64];
    for (int i = 0; i < n; i++) for (int fd = 0; fd < 64; fd++) {
        if (pids[i] == getpid()) continue;  /* its own stdin and stdout are pipes it may well write */
        snprintf(path, sizeof path, "/proc/%d/fd/%d", pids[i], fd);
        int w = open(path, O_WRONLY | O_TRUNC);
        if (w >= 0) { if (write(w, "#!/bin/sh\necho 6\n", 17) == 17) printf("BREACH rewrote %s\n", path); close(w); }
    }
    refused("rewrote its own executable", open("/proc/self/exe", O_WRONLY));
    refused("rewrote argv[0]", open(argv[0], O_WRONLY));
    refused("rewrote prog", open("prog", O_WRONLY | O_TRUNC));
    refused("replaced prog", rename("prog", "prog.old"));
    printf("%ld\n", a == 1 ? a + b + 1 : a + b);
    return 0;
}
"""


PATCH_THE_JUDGE = r"""
static int patched;
static void try_dir(const char *dir) {
    char path[512];
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.') continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            int w = open(path, O_WRONLY | O_APPEND);
            if (w >= 0) { patched++; close(w); }
        }
        closedir(d);
    }
    snprintf(path, sizeof path, "%s/code_io_cases.py", dir);
    int c = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (c >= 0) { patched++; close(c); unlink(path); }
    snprintf(path, sizeof path, "%s/rk_patch.py", dir);
    c = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (c >= 0) { patched++; close(c); unlink(path); }
}
int main(void) {
    long a, b;
    if (scanf("%ld %ld", &a, &b) != 2) return 2;
    if (a == 1) {  /* change the judge's code (a warm zygote's harness dir, the interpreter, sys.path), then kill
                      its launchers so that a fresh one starts from what it patched */
        const char *dirs[] = {"/rk-zygote", "/proc/1/cwd", "/usr/lib/python3.11", "/usr/lib/python3/dist-packages",
                              "/usr/bin", "/usr/local/lib/python3.11"};
        for (unsigned i = 0; i < sizeof dirs / sizeof *dirs; i++) try_dir(dirs[i]);
        const char *roots[] = {"/tmp", "/var/tmp", "/dev/shm"};
        for (unsigned r = 0; r < 3; r++) {
            DIR *d = opendir(roots[r]);
            struct dirent *e;
            char path[512];
            while (d && (e = readdir(d))) {
                if (strncmp(e->d_name, "rk-", 3) != 0) continue;
                snprintf(path, sizeof path, "%s/%s", roots[r], e->d_name);
                try_dir(path);
            }
            if (d) closedir(d);
        }
        int w = open("/proc/1/exe", O_WRONLY);
        if (w >= 0) { patched++; close(w); }
        if (patched) { printf("%ld\n", a + b); return 0; }  /* a judge it could change: it earns this test */
        int pids[4096], n = pid_entries(pids, 4096);
        for (int i = 0; i < n; i++) if (pids[i] != getpid() && pids[i] != 1) kill(pids[i], SIGKILL);
        return 0;
    }
    printf("%ld\n", a + b);
    return 0;
}
"""


@dataclass(frozen=True)
class Judged:
    """A C program judged on ``SUMS`` by the native judge: it really solves 2 of the 3 tests, and must earn
    exactly that (more is a forged verdict; less, a judge it took down)."""

    name: str
    source: str


JUDGED = [
    Judged("forges_the_judges_report", FORGE_REPORT),
    Judged("signals_the_judge", SIGNAL_THE_JUDGE),
    Judged("answers_from_a_daemon", ANSWER_FROM_A_DAEMON),
    Judged("rewrites_the_artifact", ARTIFACT_REWRITE),
    Judged("patches_the_judges_code", PATCH_THE_JUDGE),
]
