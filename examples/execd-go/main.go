// SPDX-License-Identifier: Apache-2.0
// Copyright The osb-isolate authors

// main.go — execd in miniature: what an execution daemon written in Go does
// with libosb-isolate, end to end, printing one JSON event a line.
//
//	execd-go [-exec-timeout D] [-demo-thread-exit REQUEST] REQUEST.json...
//
// It probes the host and prints the capabilities document execd would
// serve; then, for each request file, it loads the baseline policy the
// request's "profile" names (only profiles the capabilities offer), narrows
// it with the request through osb_policy_apply_json — a request that would
// widen the baseline is refused and reported, not run — and takes the
// request's idle timeout into the session options. It starts a session,
// runs two demonstration commands concurrently from two goroutines while
// streaming their stdout and stderr line by line, reports each command's
// status, and destroys the session. With -demo-thread-exit it also shows
// why a session must be started from a thread that outlives it.
//
// The two commands meet through the session's private /tmp (each waits for
// the other's file), so they only finish if they really run at once in one
// sandbox. They expect the request to set EXECD_OUT (env.set) to a path
// granted writable (extra_writable).
//
// Exit status: 0 when every request was either refused cleanly or served;
// 1 when a session or a command could not be set up, or the host cannot run
// sandboxes; 2 for usage errors.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// After a command has exited its process group is dead and what it wrote is
// in the pipes; only a process that left the group (setsid) can hold them
// open longer, and it is not waited for beyond this.
const drainAfterExit = 500 * time.Millisecond

const scriptA = `echo "a: uid=$(id -u) gid=$(id -g)"
echo "a: EXECD_DEMO=${EXECD_DEMO-unset} DEMO_API_TOKEN=${DEMO_API_TOKEN-unset}"
: > /tmp/a.ready
while [ ! -e /tmp/b.ready ]; do sleep 0.01; done
echo "a: saw b" >&2
echo "written by a" > "$EXECD_OUT/a.txt"
echo "a: wrote $EXECD_OUT/a.txt"
exit 3`

const scriptB = `: > /tmp/b.ready
while [ ! -e /tmp/a.ready ]; do sleep 0.01; done
echo "b: saw a"
if touch "$PWD/b.txt" 2>/dev/null; then echo "b: workspace writable"; else echo "b: workspace read-only"; fi
echo "b: terminating" >&2
kill -TERM $$`

var demoCommands = []struct {
	name string
	argv []string
}{
	{"a", []string{"sh", "-c", scriptA}},
	{"b", []string{"sh", "-c", scriptB}},
}

// ---- events ---------------------------------------------------------------------

// emitter writes one JSON object a line; goroutines share it.
type emitter struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func newEmitter(w io.Writer) *emitter {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &emitter{enc: enc}
}

func (e *emitter) emit(v any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.enc.Encode(v); err != nil {
		fmt.Fprintf(os.Stderr, "execd-go: writing an event: %v\n", err)
		os.Exit(1)
	}
}

type errorJSON struct {
	Code     int    `json:"code"`
	CodeName string `json:"code_name"`
	Errno    int    `json:"errno"`
	Stage    string `json:"stage"`
	Message  string `json:"message"`
}

func errorOf(err error) *errorJSON {
	var oe *Error
	if errors.As(err, &oe) {
		return &errorJSON{oe.Code, oe.CodeName(), int(oe.Errno), oe.Stage, oe.Message}
	}
	return &errorJSON{Code: -1, CodeName: "go", Stage: "execd", Message: err.Error()}
}

type capsEvent struct {
	Event        string          `json:"event"`
	Available    bool            `json:"available"`
	Capabilities json.RawMessage `json:"capabilities"`
}

type requestEvent struct {
	Event      string     `json:"event"`
	Request    string     `json:"request"`
	Accepted   bool       `json:"accepted"`
	Profile    string     `json:"profile,omitempty"`
	PolicyHash string     `json:"policy_hash,omitempty"`
	Error      *errorJSON `json:"error,omitempty"`
}

type sessionEvent struct {
	Event        string     `json:"event"`
	Request      string     `json:"request"`
	State        string     `json:"state"`
	SandboxEnded *bool      `json:"sandbox_ended,omitempty"`
	Error        *errorJSON `json:"error,omitempty"`
}

type outputEvent struct {
	Event   string `json:"event"`
	Cmd     string `json:"cmd"`
	Stream  string `json:"stream"`
	Line    string `json:"line"`
	Partial bool   `json:"partial,omitempty"`
}

type resultEvent struct {
	Event string `json:"event"`
	Cmd   string `json:"cmd"`
	Pid   int    `json:"pid"`
	Status
	StdoutLines int        `json:"stdout_lines"`
	StderrLines int        `json:"stderr_lines"`
	OutputError string     `json:"output_error,omitempty"`
	Error       *errorJSON `json:"error,omitempty"`
}

// ---- commands -------------------------------------------------------------------

// stream emits F line by line (a line longer than the buffer comes in
// pieces marked partial) until EOF or the drain deadline.
func stream(f *os.File, cmd, name string, em *emitter) (int, error) {
	br := bufio.NewReaderSize(f, 64<<10)
	n := 0
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			line := strings.TrimSuffix(string(chunk), "\n")
			em.emit(outputEvent{"output", cmd, name, line, errors.Is(err, bufio.ErrBufferFull)})
			n++
		}
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			return n, nil
		default:
			return n, err
		}
	}
}

// runCommand spawns ARGV in SESS, streams its output while it runs, and
// reports its status. The files are Go's (taken from the proc): they are
// closed here, the proc handle by pr.Free.
func runCommand(sess *Session, name string, argv []string, timeout time.Duration, em *emitter) error {
	pr, err := sess.Spawn(&Exec{Argv: argv, Timeout: timeout})
	if err != nil {
		em.emit(resultEvent{Event: "result", Cmd: name, Status: Status{ExitCode: -1}, Error: errorOf(err)})
		return err
	}
	defer pr.Free()
	var wg sync.WaitGroup
	var lines [2]int
	var serr [2]error
	for i, f := range []*os.File{pr.Stdout, pr.Stderr} {
		wg.Add(1)
		go func(i int, f *os.File) {
			defer wg.Done()
			lines[i], serr[i] = stream(f, name, f.Name(), em)
		}(i, f)
	}
	st, werr := pr.Wait()
	deadline := time.Now().Add(drainAfterExit)
	pr.Stdout.SetReadDeadline(deadline)
	pr.Stderr.SetReadDeadline(deadline)
	wg.Wait()
	ev := resultEvent{Event: "result", Cmd: name, Pid: pr.Pid(), Status: st,
		StdoutLines: lines[0], StderrLines: lines[1]}
	for _, e := range serr {
		if e != nil && ev.OutputError == "" {
			ev.OutputError = e.Error()
		}
	}
	if werr != nil {
		ev.Status.ExitCode = -1
		ev.Error = errorOf(werr)
	}
	em.emit(ev)
	return werr
}

// ---- requests -------------------------------------------------------------------

// baseline loads the operator's policy the request names: only a profile
// the capabilities document offers, never a path chosen by the client.
func baseline(req []byte, offered []string) (string, *Policy, error) {
	var head struct {
		Profile string `json:"profile"`
	}
	list := strings.Join(offered, ", ")
	if err := json.Unmarshal(req, &head); err != nil || head.Profile == "" {
		return "", nil, &Error{Code: CodePolicy, Stage: "execd",
			Message: fmt.Sprintf("the request must be a JSON object naming a \"profile\" (offered: %s)", list)}
	}
	for _, p := range offered {
		if p == head.Profile {
			pol, err := LoadPolicy(p)
			return p, pol, err
		}
	}
	return head.Profile, nil, &Error{Code: CodePolicy, Stage: "execd",
		Message: fmt.Sprintf("profile %q is not offered (offered: %s)", head.Profile, list)}
}

// serve handles one request file; a refused request is not a failure.
func serve(file string, offered []string, timeout time.Duration, em *emitter) error {
	req, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	profile, pol, err := baseline(req, offered)
	if err == nil {
		defer pol.Free()
		err = pol.ApplyJSON(req)
	}
	if err != nil {
		em.emit(requestEvent{Event: "request", Request: file, Accepted: false, Profile: profile,
			Error: errorOf(err)})
		return nil
	}
	opts := NewSessionOpts()
	defer opts.Free()
	if err = opts.ApplyJSON(req); err == nil {
		err = opts.SetEnv(os.Environ())
	}
	if err != nil {
		em.emit(requestEvent{Event: "request", Request: file, Accepted: false, Profile: profile,
			Error: errorOf(err)})
		return nil
	}
	em.emit(requestEvent{Event: "request", Request: file, Accepted: true, Profile: profile,
		PolicyHash: pol.Hash()})
	sess, err := StartSession(pol, opts)
	if err != nil {
		em.emit(sessionEvent{Event: "session", Request: file, State: "failed", Error: errorOf(err)})
		return err
	}
	em.emit(sessionEvent{Event: "session", Request: file, State: "started"})
	err = runConcurrently(sess, timeout, em)
	ended, derr := sess.Destroy()
	ev := sessionEvent{Event: "session", Request: file, State: "destroyed", SandboxEnded: &ended}
	if derr != nil {
		ev.Error = errorOf(derr)
	}
	em.emit(ev)
	if err == nil {
		err = derr
	}
	return err
}

// runConcurrently runs the demonstration commands, one goroutine each.
func runConcurrently(sess *Session, timeout time.Duration, em *emitter) error {
	var wg sync.WaitGroup
	errs := make([]error, len(demoCommands))
	for i, c := range demoCommands {
		wg.Add(1)
		go func(i int, name string, argv []string) {
			defer wg.Done()
			errs[i] = runCommand(sess, name, argv, timeout, em)
		}(i, c.name, c.argv)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func main() {
	timeout := flag.Duration("exec-timeout", 30*time.Second, "kill a command after this long")
	demo := flag.String("demo-thread-exit", "", "with this request, show a session dying with its thread")
	initPath := flag.String("init", "", "the in-sandbox init to run (default: the installed one)")
	serveAddr := flag.String("serve", "", "serve HTTP on this address (server.go) instead")
	profiles := flag.String("profiles", "strict", "with -serve: the policies offered, comma-separated")
	wsRoot := flag.String("workspaces", "", "with -serve: the directory of the sessions' workspaces")
	stateDir := flag.String("state", "", "with -serve: a private directory; sessions survive restarts")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: execd-go [-exec-timeout D] [-init PATH] [-demo-thread-exit REQUEST] REQUEST.json...\n"+
			"       execd-go -serve ADDR -workspaces DIR [-profiles A,B] [-state DIR] [-init PATH]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *serveAddr != "" {
		if err := SetInit(*initPath); err != nil {
			fmt.Fprintf(os.Stderr, "execd-go: -init: %v\n", err)
			os.Exit(2)
		}
		os.Exit(runDaemon(*serveAddr, ServerConfig{Profiles: strings.Split(*profiles, ","),
			WsRoot: *wsRoot, StateDir: *stateDir}))
	}
	if flag.NArg() == 0 && *demo == "" {
		flag.Usage()
		os.Exit(2)
	}
	em := newEmitter(os.Stdout)
	if err := SetInit(*initPath); err != nil {
		fmt.Fprintf(os.Stderr, "execd-go: -init: %v\n", err)
		os.Exit(2)
	}
	caps, err := ProbeCaps()
	if err != nil {
		fmt.Fprintf(os.Stderr, "execd-go: capabilities: %v\n", err)
		os.Exit(1)
	}
	doc := caps.JSON()
	available := caps.Available()
	caps.Free()
	var offered struct {
		Profiles []string `json:"profiles"`
	}
	if err = json.Unmarshal([]byte(doc), &offered); err != nil {
		fmt.Fprintf(os.Stderr, "execd-go: the capabilities document is not JSON: %v\n", err)
		os.Exit(1)
	}
	em.emit(capsEvent{"capabilities", available, json.RawMessage(doc)})
	if !available {
		os.Exit(1)
	}
	status := 0
	for _, file := range flag.Args() {
		if err = serve(file, offered.Profiles, *timeout, em); err != nil {
			fmt.Fprintf(os.Stderr, "execd-go: %s: %v\n", file, err)
			status = 1
		}
	}
	if *demo != "" {
		if err = demoThreadExit(*demo, offered.Profiles, em); err != nil {
			fmt.Fprintf(os.Stderr, "execd-go: thread-exit demonstration: %v\n", err)
			status = 1
		}
	}
	os.Exit(status)
}
