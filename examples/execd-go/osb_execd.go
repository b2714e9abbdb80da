// SPDX-License-Identifier: Apache-2.0
// Copyright The osb-isolate authors

// osb_execd.go — the part of the binding an HTTP execd needs beyond osb.go:
// a request read once (osb_request_load), the capabilities document with
// the host's workspace roots, sessions that outlive the daemon (detach,
// attach), shell state, services, large scripts, and the file API
// (stat, typed listing, streaming atomic upload, download), all in the
// library's terms: every refusal is the library's error.
package main

/*
#include <fcntl.h>
#include <stdlib.h>
#include <osb-isolate.h>

// The I-th entry of a readdir array (cgo cannot index a C array directly).
static const osb_dirent *execd_dirent(const osb_dirent *v, int i) { return &v[i]; }
*/
import "C"

import (
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// ---- configuration and requests -------------------------------------------------

// Config is the host configuration (workspace roots).
type Config struct{ c *C.osb_config }

// NewConfig has the workspace roots ROOTS (none: any directory the path
// rules allow).
func NewConfig(roots []string) (*Config, error) {
	c := C.osb_config_new()
	for _, r := range roots {
		cs, err := cString(r, "a workspace root")
		if err != nil {
			C.osb_config_free(c)
			return nil, err
		}
		var e C.osb_error
		rc := C.osb_config_add_workspace_root(c, cs, &e)
		C.free(unsafe.Pointer(cs))
		if err = fromC(rc, &e, "osb_config_add_workspace_root"); err != nil {
			C.osb_config_free(c)
			return nil, err
		}
	}
	return &Config{c}, nil
}

func (c *Config) Free() { C.osb_config_free(c.c) }

// CapsJSON is the capabilities document with the configuration's
// workspace roots as allowed_workspaces.
func (c *Caps) JSONConfig(cfg *Config) string {
	s := C.osb_caps_json_config(c.c, cfg.c)
	defer C.osb_free(unsafe.Pointer(s))
	return C.GoString(s)
}

// LoadRequest reads an execd request once: the baseline its profile names
// (among PROFILES, the first the default), CFG, the narrowing, the idle
// timeout (osb_request_load).
func LoadRequest(req []byte, profiles []string, cfg *Config) (*Policy, *SessionOpts, error) {
	js, err := cString(string(req), "the request")
	if err != nil {
		return nil, nil, err
	}
	defer C.free(unsafe.Pointer(js))
	arr, err := cStrv(profiles, "a profile")
	if err != nil {
		return nil, nil, err
	}
	defer freeStrv(arr)
	var p *C.osb_policy
	var o *C.osb_session_opts
	var e C.osb_error
	if err = fromC(C.osb_request_load(js, arr, cfg.c, &p, &o, &e), &e, "osb_request_load"); err != nil {
		return nil, nil, err
	}
	return &Policy{p}, &SessionOpts{o}, nil
}

// SetShellState makes the session carry cd and export between commands.
func (o *SessionOpts) SetShellState(on bool) {
	C.osb_session_opts_set_shell_state(o.o, cbool(on))
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// ---- sessions that outlive the daemon ------------------------------------------------

// Detach lets the session outlive this process, served as DIR/ID.sock.
func (s *Session) Detach(dir, id string) error {
	cd, err := cString(dir, "the directory")
	if err != nil {
		return err
	}
	defer C.free(unsafe.Pointer(cd))
	ci, err := cString(id, "the session id")
	if err != nil {
		return err
	}
	defer C.free(unsafe.Pointer(ci))
	var e C.osb_error
	return fromC(C.osb_session_detach(s.s, cd, ci, &e), &e, "osb_session_detach")
}

// AttachSession takes up the detached session ID in DIR.
func AttachSession(dir, id string) (*Session, error) {
	cd, err := cString(dir, "the directory")
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(cd))
	ci, err := cString(id, "the session id")
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(ci))
	var e C.osb_error
	s := C.osb_session_attach(cd, ci, &e)
	if s == nil {
		return nil, fromC(-1, &e, "osb_session_attach")
	}
	return &Session{s: s}, nil
}

// Release frees the handle; a detached session lives on.
func (s *Session) Release() { C.osb_session_free(s.s) }

// EndReason is why the session ended ("running", "destroyed", "idle", "lost", "broken").
func (s *Session) EndReason() string {
	return C.GoString(C.osb_session_end_name(C.osb_session_end_reason(s.s)))
}

// IdleRemaining is what is left of the idle timeout (-1: none).
func (s *Session) IdleRemaining() int64 {
	var ms C.uint64_t
	if C.osb_session_idle_remaining_ms(s.s, &ms) != 0 {
		return -1
	}
	return int64(ms)
}

// LastActivity is when the session last started or finished a command, Unix ms.
func (s *Session) LastActivity() int64 {
	var ms C.int64_t
	C.osb_session_last_activity(s.s, &ms)
	return int64(ms)
}

// Services is the JSON array of what kept commands left running.
func (s *Session) Services() (string, error) {
	var js *C.char
	var e C.osb_error
	if err := fromC(C.osb_session_services_json(s.s, &js, &e), &e, "osb_session_services_json"); err != nil {
		return "", err
	}
	defer C.osb_free(unsafe.Pointer(js))
	return C.GoString(js), nil
}

// SpawnWith is Spawn with the session-only settings: KEEP leaves services
// behind; SCRIPT (non-nil) is read by the argv's interpreter from a memfd.
func (s *Session) SpawnWith(x *Exec, keep bool, script []byte) (*Proc, error) {
	ex, err := newExec(x)
	if err != nil {
		return nil, err
	}
	defer C.osb_exec_free(ex)
	C.osb_exec_set_keep_services(ex, cbool(keep))
	if script != nil {
		if len(script) == 0 {
			script = []byte("\n") // an empty script: C needs a pointer
		}
		p := (*C.char)(unsafe.Pointer(&script[0]))
		if err = fromC(C.osb_exec_set_script(ex, p, C.size_t(len(script))), nil, "osb_exec_set_script"); err != nil {
			return nil, err
		}
		runtime.KeepAlive(script)
	}
	var pp *C.osb_proc
	var e C.osb_error
	if err = fromC(C.osb_session_spawn(s.s, ex, &pp, &e), &e, "osb_session_spawn"); err != nil {
		return nil, err
	}
	pr := &Proc{p: pp}
	if pr.Stdout, err = takeFile(pp, 1, "stdout"); err == nil {
		pr.Stderr, err = takeFile(pp, 2, "stderr")
	}
	if err != nil {
		pr.Free()
		return nil, err
	}
	return pr, nil
}

// ---- files ------------------------------------------------------------------------

// FileInfo is osb_file_info.
type FileInfo struct {
	Name       string `json:"name,omitempty"`
	Type       string `json:"type"`
	Mode       uint32 `json:"mode"`
	Size       uint64 `json:"size"`
	MtimeSec   int64  `json:"mtime"`
	LinkTarget string `json:"link_target,omitempty"`
}

var fileTypes = map[C.int]string{
	C.OSB_FILE_REGULAR: "file", C.OSB_FILE_DIRECTORY: "directory", C.OSB_FILE_SYMLINK: "symlink",
	C.OSB_FILE_FIFO: "fifo", C.OSB_FILE_SOCKET: "socket", C.OSB_FILE_CHAR_DEVICE: "char-device",
	C.OSB_FILE_BLOCK_DEVICE: "block-device",
}

func typeName(t C.int) string {
	if n, ok := fileTypes[t]; ok {
		return n
	}
	return "unknown"
}

// O_PATH (Linux), which package syscall does not name.
const oPath = 0x200000

// Root is an open directory the file API works beneath (a workspace).
type Root struct{ fd int }

func OpenRoot(dir string) (*Root, error) {
	fd, err := syscall.Open(dir, oPath|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return &Root{fd}, nil
}

func (r *Root) Close() { syscall.Close(r.fd) }

// Lstat reports REL, a final symlink as itself (osb_lstat_beneath).
func (r *Root) Lstat(rel string) (*FileInfo, error) {
	cs, err := cString(rel, "the path")
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(cs))
	var info C.osb_file_info
	var e C.osb_error
	if err = fromC(C.osb_lstat_beneath(C.int(r.fd), cs, &info, &e), &e, "osb_lstat_beneath"); err != nil {
		return nil, err
	}
	return &FileInfo{Type: typeName(info._type), Mode: uint32(info.mode), Size: uint64(info.size),
		MtimeSec: int64(info.mtime_sec), LinkTarget: C.GoString(&info.link_target[0])}, nil
}

// List is the typed listing of directory REL (osb_readdir_beneath).
func (r *Root) List(rel string) ([]FileInfo, error) {
	cs, err := cString(rel, "the path")
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(cs))
	var ents *C.osb_dirent
	var e C.osb_error
	n := C.osb_readdir_beneath(C.int(r.fd), cs, 0, &ents, &e)
	if err = fromC(n, &e, "osb_readdir_beneath"); err != nil {
		return nil, err
	}
	defer C.osb_free(unsafe.Pointer(ents))
	out := make([]FileInfo, 0, int(n))
	for i := 0; i < int(n); i++ {
		d := C.execd_dirent(ents, C.int(i))
		out = append(out, FileInfo{Name: C.GoString(d.name), Type: typeName(d._type)})
	}
	return out, nil
}

// OpenRead opens REL for reading (osb_open_beneath: no symlink, no FIFO).
func (r *Root) OpenRead(rel string) (*os.File, error) {
	cs, err := cString(rel, "the path")
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(cs))
	var e C.osb_error
	fd := C.osb_open_beneath(C.int(r.fd), cs, C.O_RDONLY, 0, &e)
	if err = fromC(fd, &e, "osb_open_beneath"); err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), rel), nil
}

// Writer is a streaming atomic upload (osb_writer_*).
type Writer struct{ w *C.osb_file_writer }

func (r *Root) Create(rel string, mode uint32) (*Writer, error) {
	cs, err := cString(rel, "the path")
	if err != nil {
		return nil, err
	}
	defer C.free(unsafe.Pointer(cs))
	var e C.osb_error
	w := C.osb_writer_open_beneath(C.int(r.fd), cs, C.unsigned(mode), &e)
	if w == nil {
		return nil, fromC(-1, &e, "osb_writer_open_beneath")
	}
	return &Writer{w}, nil
}

func (w *Writer) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var e C.osb_error
	err := fromC(C.osb_writer_write(w.w, unsafe.Pointer(&p[0]), C.size_t(len(p)), &e), &e, "osb_writer_write")
	runtime.KeepAlive(p)
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// Commit puts the file in place; Free (after Commit or not) releases it.
func (w *Writer) Commit() error {
	var e C.osb_error
	return fromC(C.osb_writer_commit(w.w, 0, &e), &e, "osb_writer_commit")
}

func (w *Writer) Free() { C.osb_writer_free(w.w) }

// Workspace is the workspace the request (or SetWorkspace) named, or "".
func (p *Policy) Workspace() string {
	ws := C.osb_policy_workspace(p.p)
	if ws == nil {
		return ""
	}
	return C.GoString(ws)
}

// SetWorkspace gives the policy the workspace DIR (osb_policy_set_workspace).
func (p *Policy) SetWorkspace(dir string) error {
	cs, err := cString(dir, "the workspace")
	if err != nil {
		return err
	}
	defer C.free(unsafe.Pointer(cs))
	var e C.osb_error
	return fromC(C.osb_policy_set_workspace(p.p, cs, &e), &e, "osb_policy_set_workspace")
}

// IdentityMode is the mode the session's sandbox was built in.
func (s *Session) IdentityMode() string {
	return C.GoString(C.osb_identity_mode_name(C.osb_session_identity_mode(s.s)))
}
