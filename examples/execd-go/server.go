// SPDX-License-Identifier: Apache-2.0
// Copyright The osb-isolate authors

// server.go — an execd-shaped HTTP server on libosb-isolate (stdlib only):
//
//	GET    /capabilities                         the capabilities document
//	POST   /sessions[?shell_state=1]             body: an execd request -> {"id", ...}
//	GET    /sessions/ID                          its state, services included
//	DELETE /sessions/ID                          destroy it
//	POST   /sessions/ID/commands                 body: {"argv" | "script", "env", "cwd",
//	                                             "timeout_ms", "background", "keep_services"}
//	                                             foreground: SSE events stdout, stderr, exit;
//	                                             background: {"id"}
//	GET    /sessions/ID/commands/CID             a background command's status
//	GET    /sessions/ID/commands/CID/logs?cursor=N  its output from byte N: {"data", "next", "done"}
//	POST   /sessions/ID/commands/CID/interrupt[?signal=TERM|KILL|INT]
//	PUT    /sessions/ID/files?path=P             upload (streamed, atomic)
//	GET    /sessions/ID/files?path=P             download
//	GET    /sessions/ID/files/stat?path=P        metadata (a symlink reported itself)
//	GET    /sessions/ID/files/list?path=P        typed listing
//
// Every refusal is the library's error, as JSON {"error": {...}} with an
// HTTP status from its code. With a state directory each session is
// detached at once (osb_session_detach), so it survives the daemon, even a
// kill -9; a daemon started on the same directory attaches to them again.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Server is the daemon's state: its sessions by id.
type Server struct {
	caps     *Caps
	cfg      *Config
	profiles []string
	wsRoot   string // where sessions without a workspace get one
	stateDir string // "": sessions die with the daemon
	mu       sync.Mutex
	sessions map[string]*session
	nextID   int
	logLimit int
}

type session struct {
	id, workspace string
	s             *Session
	root          *Root
	mu            sync.Mutex
	cmds          map[string]*bgCmd
	next          int
}

// ServerConfig says what the daemon offers and where it keeps things.
type ServerConfig struct {
	Profiles []string // the policies a request may name, the first the default
	WsRoot   string   // a directory for the sessions' workspaces
	StateDir string   // "" or a private directory: sessions survive restarts
}

// NewServer probes the host and, with a state directory, attaches to the
// sessions an earlier daemon left there.
func NewServer(sc ServerConfig) (*Server, error) {
	caps, err := ProbeCaps()
	if err != nil {
		return nil, err
	}
	cfg, err := NewConfig([]string{sc.WsRoot})
	if err != nil {
		caps.Free()
		return nil, err
	}
	srv := &Server{caps: caps, cfg: cfg, profiles: sc.Profiles, wsRoot: sc.WsRoot,
		stateDir: sc.StateDir, sessions: map[string]*session{}, logLimit: 8 << 20}
	if sc.StateDir != "" {
		if err = os.MkdirAll(sc.StateDir, 0o700); err == nil {
			err = srv.reattach()
		}
		if err != nil {
			srv.Close()
			return nil, err
		}
	}
	return srv, nil
}

// Close releases every handle; detached sessions live on, the others end.
func (srv *Server) Close() {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	for id, ss := range srv.sessions {
		ss.close(srv.stateDir != "")
		delete(srv.sessions, id)
	}
	srv.cfg.Free()
	srv.caps.Free()
}

func (ss *session) close(keep bool) {
	ss.mu.Lock()
	for _, c := range ss.cmds {
		c.kill()
	}
	ss.mu.Unlock()
	if keep {
		ss.s.Release()
	} else {
		ss.s.Destroy()
	}
	ss.root.Close()
}

// ---- sessions that survive the daemon -----------------------------------------------

type sessionRecord struct {
	Workspace string `json:"workspace"`
}

func (srv *Server) reattach() error {
	recs, err := filepath.Glob(filepath.Join(srv.stateDir, "*.json"))
	if err != nil {
		return err
	}
	for _, rec := range recs {
		id := strings.TrimSuffix(filepath.Base(rec), ".json")
		var r sessionRecord
		data, err := os.ReadFile(rec)
		if err == nil {
			err = json.Unmarshal(data, &r)
		}
		var s *Session
		if err == nil {
			s, err = AttachSession(srv.stateDir, id)
		}
		var root *Root
		if err == nil {
			if root, err = OpenRoot(r.Workspace); err != nil {
				s.Release()
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "execd-go: session %s is gone: %v\n", id, err)
			os.Remove(rec)
			continue
		}
		srv.sessions[id] = &session{id: id, workspace: r.Workspace, s: s, root: root,
			cmds: map[string]*bgCmd{}}
		if n, err := strconv.Atoi(strings.TrimPrefix(id, "s")); err == nil && n >= srv.nextID {
			srv.nextID = n + 1
		}
	}
	return nil
}

// ---- HTTP plumbing -------------------------------------------------------------------

func (srv *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case len(parts) == 1 && parts[0] == "capabilities" && r.Method == http.MethodGet:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, srv.caps.JSONConfig(srv.cfg))
	case len(parts) == 1 && parts[0] == "sessions" && r.Method == http.MethodPost:
		srv.createSession(w, r)
	case len(parts) >= 2 && parts[0] == "sessions":
		ss := srv.lookup(parts[1])
		if ss == nil {
			fail(w, http.StatusNotFound, "no session %q", parts[1])
			return
		}
		srv.sessionRoute(w, r, ss, parts[2:])
	default:
		fail(w, http.StatusNotFound, "no such endpoint: %s %s", r.Method, r.URL.Path)
	}
}

func (srv *Server) sessionRoute(w http.ResponseWriter, r *http.Request, ss *session, rest []string) {
	switch {
	case len(rest) == 0 && r.Method == http.MethodGet:
		ss.info(w)
	case len(rest) == 0 && r.Method == http.MethodDelete:
		srv.destroy(w, ss)
	case len(rest) == 1 && rest[0] == "commands" && r.Method == http.MethodPost:
		srv.command(w, r, ss)
	case len(rest) >= 2 && rest[0] == "commands":
		ss.background(w, r, rest[1], rest[2:])
	case len(rest) >= 1 && rest[0] == "files":
		ss.files(w, r, rest[1:])
	default:
		fail(w, http.StatusNotFound, "no such endpoint: %s %s", r.Method, r.URL.Path)
	}
}

func (srv *Server) lookup(id string) *session {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return srv.sessions[id]
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, status int, format string, args ...any) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"stage": "execd",
		"message": fmt.Sprintf(format, args...)}})
}

// failErr answers the library's error with a status its code implies.
func failErr(w http.ResponseWriter, err error) {
	status := http.StatusInternalServerError
	var oe *Error
	if errors.As(err, &oe) {
		switch oe.CodeName() {
		case "usage", "policy":
			status = http.StatusBadRequest
		case "path":
			status = http.StatusForbidden
			if errors.Is(err, syscall.ENOENT) {
				status = http.StatusNotFound
			}
		case "sandbox":
			status = http.StatusConflict
		}
	}
	writeJSON(w, status, map[string]any{"error": errorOf(err)})
}

// ---- sessions ----------------------------------------------------------------------

func (srv *Server) createSession(w http.ResponseWriter, r *http.Request) {
	req, err := io.ReadAll(io.LimitReader(r.Body, 1<<20+1))
	if err != nil {
		fail(w, http.StatusBadRequest, "reading the request: %v", err)
		return
	}
	pol, opts, err := LoadRequest(req, srv.profiles, srv.cfg)
	if err != nil {
		failErr(w, err)
		return
	}
	defer pol.Free()
	defer opts.Free()
	opts.SetShellState(r.URL.Query().Get("shell_state") == "1")
	srv.mu.Lock()
	id := fmt.Sprintf("s%d", srv.nextID)
	srv.nextID++
	srv.mu.Unlock()
	ws := pol.Workspace()
	if ws == "" {
		ws = filepath.Join(srv.wsRoot, id)
		if err = os.Mkdir(ws, 0o777); err == nil {
			err = os.Chmod(ws, 0o777) // the sandbox's ids own nothing here
		}
		if err == nil {
			err = pol.SetWorkspace(ws)
		}
		if err != nil {
			failErr(w, err)
			return
		}
	}
	ss, err := srv.start(id, ws, pol, opts)
	if err != nil {
		failErr(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"id": id, "workspace": ws,
		"policy_hash": pol.Hash(), "identity_mode": ss.s.IdentityMode()})
}

func (srv *Server) start(id, ws string, pol *Policy, opts *SessionOpts) (*session, error) {
	s, err := StartSession(pol, opts)
	if err != nil {
		return nil, err
	}
	root, err := OpenRoot(ws)
	if err == nil && srv.stateDir != "" {
		err = srv.persist(s, id, ws)
	}
	if err != nil {
		s.Destroy()
		if root != nil {
			root.Close()
		}
		return nil, err
	}
	ss := &session{id: id, workspace: ws, s: s, root: root, cmds: map[string]*bgCmd{}}
	srv.mu.Lock()
	srv.sessions[id] = ss
	srv.mu.Unlock()
	return ss, nil
}

// persist detaches the session and records what a restarted daemon needs.
func (srv *Server) persist(s *Session, id, ws string) error {
	data, _ := json.Marshal(sessionRecord{Workspace: ws})
	if err := os.WriteFile(filepath.Join(srv.stateDir, id+".json"), data, 0o600); err != nil {
		return err
	}
	return s.Detach(srv.stateDir, id)
}

func (ss *session) info(w http.ResponseWriter) {
	services, err := ss.s.Services()
	if err != nil {
		services = "[]"
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": ss.id, "workspace": ss.workspace,
		"state": ss.s.EndReason(), "idle_remaining_ms": ss.s.IdleRemaining(),
		"last_activity_unix_ms": ss.s.LastActivity(), "services": json.RawMessage(services)})
}

func (srv *Server) destroy(w http.ResponseWriter, ss *session) {
	srv.mu.Lock()
	delete(srv.sessions, ss.id)
	srv.mu.Unlock()
	if srv.stateDir != "" {
		os.Remove(filepath.Join(srv.stateDir, ss.id+".json"))
	}
	ss.close(false)
	w.WriteHeader(http.StatusNoContent)
}

// ---- commands ------------------------------------------------------------------------

type commandRequest struct {
	Argv         []string `json:"argv"`
	Script       *string  `json:"script"`
	Env          []string `json:"env"`
	Cwd          string   `json:"cwd"`
	TimeoutMS    int64    `json:"timeout_ms"`
	Background   bool     `json:"background"`
	KeepServices bool     `json:"keep_services"`
}

func (srv *Server) command(w http.ResponseWriter, r *http.Request, ss *session) {
	var cr commandRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<20)).Decode(&cr); err != nil {
		fail(w, http.StatusBadRequest, "the command is not JSON: %v", err)
		return
	}
	x := &Exec{Argv: cr.Argv, Env: cr.Env, Cwd: cr.Cwd, Timeout: time.Duration(cr.TimeoutMS) * time.Millisecond}
	var script []byte
	if cr.Script != nil {
		script = []byte(*cr.Script)
		if len(x.Argv) == 0 {
			x.Argv = []string{"sh"}
		}
	}
	if len(x.Argv) == 0 {
		fail(w, http.StatusBadRequest, "a command needs \"argv\" or \"script\"")
		return
	}
	p, err := ss.s.SpawnWith(x, cr.KeepServices, script)
	if err != nil {
		failErr(w, err)
		return
	}
	if cr.Background {
		ss.startBackground(w, p, srv.logLimit)
		return
	}
	streamSSE(w, r, p)
}

// streamSSE sends the command's output as server-sent events while it runs;
// a client that goes away kills it.
func streamSSE(w http.ResponseWriter, r *http.Request, p *Proc) {
	defer p.Free()
	fl, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	var mu sync.Mutex
	send := func(event string, v any) error {
		data, _ := json.Marshal(v)
		mu.Lock()
		defer mu.Unlock()
		_, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, data)
		if err == nil && fl != nil {
			fl.Flush()
		}
		return err
	}
	var wg sync.WaitGroup
	for _, f := range []struct {
		name string
		file *os.File
	}{{"stdout", p.Stdout}, {"stderr", p.Stderr}} {
		wg.Add(1)
		go func(name string, file *os.File) {
			defer wg.Done()
			pump(file, func(b []byte) error { return send(name, string(b)) }, p)
		}(f.name, f.file)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-r.Context().Done():
			p.Kill(syscall.SIGKILL) // the client went away
		case <-done:
		}
	}()
	st, err := p.Wait()
	close(done)
	drain(p)
	wg.Wait()
	if err != nil {
		send("error", errorOf(err))
		return
	}
	send("exit", st)
}

// pump reads FILE in chunks until EOF, handing each to EMIT; a failed emit
// (the client is gone) kills the command.
func pump(file *os.File, emit func([]byte) error, p *Proc) {
	buf := make([]byte, 64<<10)
	for {
		n, err := file.Read(buf)
		if n > 0 && emit(buf[:n]) != nil {
			p.Kill(syscall.SIGKILL)
			io.Copy(io.Discard, file)
			return
		}
		if err != nil {
			return
		}
	}
}

// drain bounds the reads after the exit: only a process that left the
// command's group (or a kept service) can hold its pipes open.
func drain(p *Proc) {
	deadline := time.Now().Add(drainAfterExit)
	p.Stdout.SetReadDeadline(deadline)
	p.Stderr.SetReadDeadline(deadline)
}

// ---- background commands -----------------------------------------------------------

type bgCmd struct {
	id     string
	p      *Proc
	mu     sync.Mutex
	log    []byte
	base   int64 // bytes dropped from the front (cursor of log[0])
	done   bool
	status Status
	err    error
	limit  int
}

func (ss *session) startBackground(w http.ResponseWriter, p *Proc, limit int) {
	ss.mu.Lock()
	id := fmt.Sprintf("c%d", ss.next)
	ss.next++
	c := &bgCmd{id: id, p: p, limit: limit}
	ss.cmds[id] = c
	ss.mu.Unlock()
	var wg sync.WaitGroup
	for _, f := range []*os.File{p.Stdout, p.Stderr} {
		wg.Add(1)
		go func(f *os.File) {
			defer wg.Done()
			pump(f, func(b []byte) error { c.append(b); return nil }, p)
		}(f)
	}
	go func() {
		st, err := p.Wait()
		drain(p)
		wg.Wait()
		c.mu.Lock()
		c.done, c.status, c.err = true, st, err
		c.mu.Unlock()
	}()
	writeJSON(w, http.StatusAccepted, map[string]any{"id": id})
}

// append keeps at most LIMIT bytes: a flood costs the daemon no more.
func (c *bgCmd) append(b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.log = append(c.log, b...)
	if over := len(c.log) - c.limit; over > 0 {
		c.log = append(c.log[:0], c.log[over:]...)
		c.base += int64(over)
	}
}

func (c *bgCmd) kill() { c.p.Kill(syscall.SIGKILL) }

func (ss *session) background(w http.ResponseWriter, r *http.Request, id string, rest []string) {
	ss.mu.Lock()
	c := ss.cmds[id]
	ss.mu.Unlock()
	if c == nil {
		fail(w, http.StatusNotFound, "no command %q", id)
		return
	}
	switch {
	case len(rest) == 0 && r.Method == http.MethodGet:
		c.mu.Lock()
		v := map[string]any{"id": id, "running": !c.done, "pid": c.p.Pid()}
		if c.done {
			v["status"] = c.status
			if c.err != nil {
				v["error"] = errorOf(c.err)
			}
		}
		c.mu.Unlock()
		writeJSON(w, http.StatusOK, v)
	case len(rest) == 1 && rest[0] == "logs" && r.Method == http.MethodGet:
		c.logs(w, r)
	case len(rest) == 1 && rest[0] == "interrupt" && r.Method == http.MethodPost:
		sig := map[string]syscall.Signal{"": syscall.SIGINT, "INT": syscall.SIGINT,
			"TERM": syscall.SIGTERM, "KILL": syscall.SIGKILL}[r.URL.Query().Get("signal")]
		if sig == 0 {
			fail(w, http.StatusBadRequest, "signal: INT, TERM or KILL")
			return
		}
		if err := c.p.Kill(sig); err != nil {
			failErr(w, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		fail(w, http.StatusNotFound, "no such endpoint: %s %s", r.Method, r.URL.Path)
	}
}

func (c *bgCmd) logs(w http.ResponseWriter, r *http.Request) {
	cursor, _ := strconv.ParseInt(r.URL.Query().Get("cursor"), 10, 64)
	c.mu.Lock()
	defer c.mu.Unlock()
	if cursor < c.base {
		cursor = c.base // the older bytes were dropped
	}
	from := cursor - c.base
	if from > int64(len(c.log)) {
		from = int64(len(c.log))
	}
	data := c.log[from:]
	writeJSON(w, http.StatusOK, map[string]any{"data": string(data), "cursor": cursor,
		"next": cursor + int64(len(data)), "done": c.done})
}

// ---- files ---------------------------------------------------------------------------

func (ss *session) files(w http.ResponseWriter, r *http.Request, rest []string) {
	path := r.URL.Query().Get("path")
	switch {
	case len(rest) == 0 && r.Method == http.MethodPut:
		ss.upload(w, r, path)
	case len(rest) == 0 && r.Method == http.MethodGet:
		f, err := ss.root.OpenRead(path)
		if err != nil {
			failErr(w, err)
			return
		}
		defer f.Close()
		w.Header().Set("Content-Type", "application/octet-stream")
		io.Copy(w, f)
	case len(rest) == 1 && rest[0] == "stat" && r.Method == http.MethodGet:
		info, err := ss.root.Lstat(path)
		if err != nil {
			failErr(w, err)
			return
		}
		writeJSON(w, http.StatusOK, info)
	case len(rest) == 1 && rest[0] == "list" && r.Method == http.MethodGet:
		list, err := ss.root.List(path)
		if err != nil {
			failErr(w, err)
			return
		}
		writeJSON(w, http.StatusOK, list)
	default:
		fail(w, http.StatusNotFound, "no such endpoint: %s %s", r.Method, r.URL.Path)
	}
}

// upload streams the body into a temporary file put in place only whole.
func (ss *session) upload(w http.ResponseWriter, r *http.Request, path string) {
	wr, err := ss.root.Create(path, 0o644)
	if err != nil {
		failErr(w, err)
		return
	}
	defer wr.Free()
	if _, err = io.CopyBuffer(wr, r.Body, make([]byte, 256<<10)); err == nil {
		err = wr.Commit()
	}
	if err != nil {
		failErr(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
