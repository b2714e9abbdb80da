// SPDX-License-Identifier: Apache-2.0
// Copyright The osb-isolate authors

// osb.go — a thin cgo binding of libosb-isolate, shaped the way an execution
// daemon written in Go uses it: capabilities, a baseline policy narrowed by a
// JSON request, a session that lives on its own OS thread, and commands whose
// output fds become *os.File values owned by Go.
//
// Ownership, in one place:
//   - Every handle (Caps, Policy, SessionOpts, Session, Proc) wraps a C
//     handle that is freed explicitly (Free/Destroy); there are no
//     finalizers, so a handle's lifetime is visible in the code.
//   - A command's stdout and stderr are moved out of the osb_proc with
//     osb_proc_take_fd: from then on Go owns them (os.File closes them) and
//     osb_proc_free does not touch them. Wrapping an fd the proc still owned
//     would give it two owners, and the second close could hit an unrelated
//     fd that reused the number in this multi-threaded program.
//   - The fds are switched to non-blocking before os.NewFile, so the Go
//     runtime polls them (no thread blocked per read, and read deadlines
//     work).
//
// Threads: every call may come from any goroutine. A session's bwrap is
// started by the library's own owner process, so the session does not die
// with the OS thread that started it (see StartSession).
package main

/*
#cgo pkg-config: osb-isolate
#include <poll.h>
#include <stdlib.h>
#include <osb-isolate.h>

// poll(2) on one fd for READ readiness: 1 ready, 0 timeout, -1 error.
static int execd_fd_readable(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, timeout_ms);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// Error is an osb_error: a stable code (OSB_E_*), the errno of the failing
// system call, the pipeline stage and a message saying what to do.
type Error struct {
	Code    int
	Errno   syscall.Errno
	Stage   string
	Message string
}

// CodePolicy is OSB_E_POLICY, for refusals made here in the library's terms.
const CodePolicy = int(C.OSB_E_POLICY)

var codeNames = map[int]string{
	int(C.OSB_E_USAGE): "usage", int(C.OSB_E_POLICY): "policy", int(C.OSB_E_PATH): "path",
	int(C.OSB_E_HOST): "host", int(C.OSB_E_SECCOMP): "seccomp", int(C.OSB_E_SPAWN): "spawn",
	int(C.OSB_E_SANDBOX): "sandbox", int(C.OSB_E_NOMEM): "nomem", int(C.OSB_E_IO): "io",
	int(C.OSB_E_INTERNAL): "internal",
}

// CodeName is the short name of the error code ("policy", "sandbox", ...).
func (e *Error) CodeName() string {
	if n, ok := codeNames[e.Code]; ok {
		return n
	}
	return fmt.Sprintf("code-%d", e.Code)
}

func (e *Error) Error() string { return e.Stage + ": " + e.Message }

// Unwrap gives the errno, so errors.Is(err, syscall.ENOENT) works.
func (e *Error) Unwrap() error {
	if e.Errno != 0 {
		return e.Errno
	}
	return nil
}

// fromC maps a return code and the osb_error the call filled to a Go error.
// A few calls (osb_proc_wait, osb_proc_take_fd) return a negative OSB_E_*
// code without an osb_error; WHAT then names the call in the message.
func fromC(rc C.int, e *C.osb_error, what string) error {
	if rc >= 0 {
		return nil
	}
	if e != nil && e.code != 0 {
		return &Error{
			Code:    int(e.code),
			Errno:   syscall.Errno(e.sys_errno),
			Stage:   C.GoString(&e.stage[0]),
			Message: C.GoString(&e.message[0]),
		}
	}
	return &Error{Code: int(-rc), Stage: "api", Message: what + " failed"}
}

// SetInit names the in-sandbox init this process runs (osb_set_program; ""
// is the one installed with the library). The library reads no environment
// variable for it: choosing what runs is the daemon's, by its own flags.
func SetInit(path string) error {
	cp, co := C.CString(path), C.CString("-init")
	defer C.free(unsafe.Pointer(cp))
	defer C.free(unsafe.Pointer(co))
	var e C.osb_error
	return fromC(C.osb_set_program(C.OSB_PROGRAM_INIT, cp, co, &e), &e, "osb_set_program")
}

// cString refuses what C would silently cut at the first NUL byte.
func cString(s, what string) (*C.char, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return nil, &Error{Code: int(C.OSB_E_USAGE), Stage: "usage", Message: what + " contains a NUL byte"}
	}
	return C.CString(s), nil
}

// cStrv is a NULL-terminated C array of copies of SS; free it with freeStrv.
func cStrv(ss []string, what string) (**C.char, error) {
	arr := (**C.char)(C.calloc(C.size_t(len(ss)+1), C.size_t(unsafe.Sizeof(uintptr(0)))))
	view := unsafe.Slice(arr, len(ss)+1)
	for i, s := range ss {
		cs, err := cString(s, what)
		if err != nil {
			freeStrv(arr)
			return nil, err
		}
		view[i] = cs
	}
	return arr, nil
}

func freeStrv(arr **C.char) {
	for p := arr; *p != nil; p = (**C.char)(unsafe.Add(unsafe.Pointer(p), unsafe.Sizeof(uintptr(0)))) {
		C.free(unsafe.Pointer(*p))
	}
	C.free(unsafe.Pointer(arr))
}

// ---- capabilities ------------------------------------------------------------

// Caps is what isolation this host gives (osb_caps).
type Caps struct{ c *C.osb_caps }

func ProbeCaps() (*Caps, error) {
	var c *C.osb_caps
	var e C.osb_error
	if err := fromC(C.osb_caps_probe(&c, 0, &e), &e, "osb_caps_probe"); err != nil {
		return nil, err
	}
	return &Caps{c}, nil
}

// JSON is the document execd serves (docs/capabilities.schema.json).
func (c *Caps) JSON() string {
	s := C.osb_caps_json(c.c)
	defer C.osb_free(unsafe.Pointer(s))
	return C.GoString(s)
}

func (c *Caps) Available() bool { return C.osb_caps_available(c.c) != 0 }
func (c *Caps) Free()           { C.osb_caps_free(c.c) }

// ---- policies ------------------------------------------------------------------

// Policy is a loaded baseline, narrowed in place by ApplyJSON.
type Policy struct{ p *C.osb_policy }

// LoadPolicy loads a shipped policy by NAME (never a path: a request must
// not choose which file becomes its baseline).
func LoadPolicy(name string) (*Policy, error) {
	if name == "" || strings.ContainsAny(name, "/\x00") {
		return nil, &Error{Code: int(C.OSB_E_USAGE), Stage: "usage",
			Message: fmt.Sprintf("profile %q is not a policy name", name)}
	}
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	var e C.osb_error
	p := C.osb_policy_load(cs, &e)
	if p == nil {
		return nil, fromC(-1, &e, "osb_policy_load")
	}
	return &Policy{p}, nil
}

// ApplyJSON narrows the policy by an execd request (osb_policy_apply_json);
// a request that would widen it is refused and the policy stays as it was.
func (p *Policy) ApplyJSON(req []byte) error {
	cs, err := cString(string(req), "the request")
	if err != nil {
		return err
	}
	defer C.free(unsafe.Pointer(cs))
	var e C.osb_error
	return fromC(C.osb_policy_apply_json(p.p, cs, &e), &e, "osb_policy_apply_json")
}

func (p *Policy) Hash() string {
	var out [72]C.char
	C.osb_policy_hash(p.p, &out[0])
	return C.GoString(&out[0])
}

func (p *Policy) Free() { C.osb_policy_free(p.p) }

// ---- sessions ------------------------------------------------------------------

type SessionOpts struct{ o *C.osb_session_opts }

func NewSessionOpts() *SessionOpts { return &SessionOpts{C.osb_session_opts_new()} }

// ApplyJSON takes the request's session part (idle_timeout), read by the
// library exactly as ApplyJSON of the policy reads it.
func (o *SessionOpts) ApplyJSON(req []byte) error {
	cs, err := cString(string(req), "the request")
	if err != nil {
		return err
	}
	defer C.free(unsafe.Pointer(cs))
	var e C.osb_error
	return fromC(C.osb_session_opts_apply_json(o.o, cs, &e), &e, "osb_session_opts_apply_json")
}

// SetEnv gives the caller environment the policy filters at start.
func (o *SessionOpts) SetEnv(env []string) error {
	arr, err := cStrv(env, "an environment entry")
	if err != nil {
		return err
	}
	defer freeStrv(arr)
	return fromC(C.osb_session_opts_set_env(o.o, arr), nil, "osb_session_opts_set_env")
}

func (o *SessionOpts) Free() { C.osb_session_opts_free(o.o) }

// Session is one sandbox that lives across commands.
type Session struct {
	s *C.osb_session
}

// StartSession starts a session from whichever goroutine calls it: the
// library starts bwrap from a process of its own (the session's owner), so
// the session no longer depends on the OS thread that ran this call.
// POLICY and OPTS are only read during the call and may be freed after it.
func StartSession(policy *Policy, opts *SessionOpts) (*Session, error) {
	var e C.osb_error
	s := C.osb_session_start_opts(policy.p, opts.o, &e)
	runtime.KeepAlive(policy)
	runtime.KeepAlive(opts)
	if s == nil {
		return nil, fromC(-1, &e, "osb_session_start_opts")
	}
	return &Session{s: s}, nil
}

// Ended reports whether the sandbox has ended (osb_session_fd readable).
func (s *Session) Ended(wait time.Duration) bool {
	return C.execd_fd_readable(C.osb_session_fd(s.s), C.int(wait.Milliseconds())) > 0
}

// Destroy kills every process of the session and releases it; ENDED says
// the sandbox was seen gone before the handle was freed. Procs should be
// freed first; s is unusable after.
func (s *Session) Destroy() (ended bool, err error) {
	var de C.osb_error
	err = fromC(C.osb_session_destroy(s.s, &de), &de, "osb_session_destroy")
	ended = C.execd_fd_readable(C.osb_session_fd(s.s), 0) > 0
	C.osb_session_free(s.s)
	return ended, err
}

// Exec describes one command. Env entries are added to the session's
// environment; one the policy's "env deny" matches is refused, as is a
// Timeout above the policy's wall limit (an error, never a silent change).
type Exec struct {
	Argv    []string
	Env     []string
	Cwd     string
	Timeout time.Duration
}

func newExec(x *Exec) (*C.osb_exec, error) {
	argv, err := cStrv(x.Argv, "an argument")
	if err != nil {
		return nil, err
	}
	defer freeStrv(argv)
	var e C.osb_error
	ex := C.osb_exec_new(argv, &e)
	if ex == nil {
		return nil, fromC(-1, &e, "osb_exec_new")
	}
	if err = setExec(ex, x); err != nil {
		C.osb_exec_free(ex)
		return nil, err
	}
	return ex, nil
}

func setExec(ex *C.osb_exec, x *Exec) error {
	if x.Env != nil {
		env, err := cStrv(x.Env, "an environment entry")
		if err != nil {
			return err
		}
		defer freeStrv(env)
		if err = fromC(C.osb_exec_set_env(ex, env), nil, "osb_exec_set_env"); err != nil {
			return err
		}
	}
	if x.Cwd != "" {
		cwd, err := cString(x.Cwd, "the working directory")
		if err != nil {
			return err
		}
		defer C.free(unsafe.Pointer(cwd))
		if err = fromC(C.osb_exec_set_cwd(ex, cwd), nil, "osb_exec_set_cwd"); err != nil {
			return err
		}
	}
	if x.Timeout > 0 {
		return fromC(C.osb_exec_set_timeout_ms(ex, C.uint64_t(x.Timeout.Milliseconds())), nil,
			"osb_exec_set_timeout_ms")
	}
	return nil
}

// Proc is a running command. Stdout and Stderr belong to the caller, who
// reads them to EOF and closes them; the proc keeps only its status channel.
type Proc struct {
	p      *C.osb_proc
	Stdout *os.File
	Stderr *os.File
}

// Spawn starts X in the session and returns at once; any goroutine may call
// it, several at a time.
func (s *Session) Spawn(x *Exec) (*Proc, error) {
	ex, err := newExec(x)
	if err != nil {
		return nil, err
	}
	defer C.osb_exec_free(ex)
	var p *C.osb_proc
	var e C.osb_error
	if err = fromC(C.osb_session_spawn(s.s, ex, &p, &e), &e, "osb_session_spawn"); err != nil {
		return nil, err
	}
	pr := &Proc{p: p}
	if pr.Stdout, err = takeFile(p, 1, "stdout"); err == nil {
		pr.Stderr, err = takeFile(p, 2, "stderr")
	}
	if err != nil {
		pr.Free()
		return nil, err
	}
	return pr, nil
}

// takeFile moves fd WHICH out of the proc into an *os.File that Go owns.
func takeFile(p *C.osb_proc, which C.int, name string) (*os.File, error) {
	fd := int(C.osb_proc_take_fd(p, which))
	if fd < 0 {
		return nil, fromC(C.int(fd), nil, "osb_proc_take_fd("+name+")")
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}

func (p *Proc) Pid() int { return int(C.osb_proc_pid(p.p)) }

// Status of a finished command (osb_status).
type Status struct {
	ExitCode   int    `json:"exit_code"`
	Signal     int    `json:"signal"`
	TimedOut   bool   `json:"timed_out"`
	DurationMS uint64 `json:"duration_ms"`
	// ProxyDied: the session's filtering proxy ("network allow") had ended
	// by itself when the status was read. The command's connections through
	// it failed from then on and the session refuses new commands; the
	// fields above are the command's all the same.
	ProxyDied bool `json:"proxy_died"`
}

// Wait blocks until the command has finished. The wait happens in C, so it
// holds this goroutine's thread; the runtime starts others as needed. A
// status lost is told by osb_proc_error, in the library's words: the
// session's end, or its stop after a malformed report (EPROTO).
func (p *Proc) Wait() (Status, error) {
	var st C.osb_status
	rc := C.osb_proc_wait(p.p, -1, &st)
	if rc < 0 {
		var e C.osb_error
		if r := C.osb_proc_error(p.p, &e); r < 0 {
			return Status{}, fromC(r, &e, "osb_proc_wait")
		}
		return Status{}, fromC(rc, nil, "osb_proc_wait")
	}
	return Status{ExitCode: int(st.exit_code), Signal: int(st.signal), TimedOut: st.timed_out != 0,
		DurationMS: uint64(st.duration_ms), ProxyDied: st.proxy_died != 0}, nil
}

func (p *Proc) Kill(sig syscall.Signal) error {
	return fromC(C.osb_proc_kill(p.p, C.int(sig)), nil, "osb_proc_kill")
}

// Free releases the proc (a command still running is killed) and closes
// the files if the caller has not.
func (p *Proc) Free() {
	C.osb_proc_free(p.p)
	for _, f := range []*os.File{p.Stdout, p.Stderr} {
		if f != nil {
			if err := f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
				fmt.Fprintf(os.Stderr, "execd-go: closing %s: %v\n", f.Name(), err)
			}
		}
	}
}
