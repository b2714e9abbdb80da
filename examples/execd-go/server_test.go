// SPDX-License-Identifier: Apache-2.0
// Copyright The osb-isolate authors

// server_test.go — the execd HTTP server (server.go) driven by an HTTP
// client against real sessions: capabilities, 20 sessions at once, an
// output flood, a timeout, a client that goes away, background commands
// with status, log cursors and interrupt, files, shell state, services, and
// a daemon killed with SIGKILL whose sessions a new daemon attaches to.
//
// Environment (tests/integration/execd-go.sh sets it): EXECD_TEST_INIT the
// in-sandbox init to run, OSB_ISOLATE_POLICY_DIR the policies.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	if err := SetInit(os.Getenv("EXECD_TEST_INIT")); err != nil {
		fmt.Fprintf(os.Stderr, "EXECD_TEST_INIT: %v\n", err)
		os.Exit(2)
	}
	// The restart test runs this binary as the daemon.
	if os.Getenv("EXECD_GO_DAEMON") == "1" {
		os.Exit(runDaemon("127.0.0.1:0", ServerConfig{Profiles: []string{"strict"},
			WsRoot: os.Getenv("EXECD_GO_WSROOT"), StateDir: os.Getenv("EXECD_GO_STATE")}))
	}
	os.Exit(m.Run())
}

// wsRoot is where the server makes the sessions' workspaces (each one
// writable by the sandbox's ids, which own nothing; the root itself by
// nobody else, or a path beneath it could be redirected).
func wsRoot(t *testing.T) string {
	dir, err := os.MkdirTemp("", "execd-go-ws.")
	if err != nil {
		t.Fatal(err)
	}
	if err = os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func newServer(t *testing.T, ws, state string) (*Server, string) {
	srv, err := NewServer(ServerConfig{Profiles: []string{"strict", "balanced"}, WsRoot: ws, StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
	})
	return srv, hs.URL
}

func do(t *testing.T, method, url string, body any) (int, []byte) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, _ := json.Marshal(b)
		rd = bytes.NewReader(data)
	}
	req, _ := http.NewRequest(method, url, rd)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

func createSession(t *testing.T, base, query, request string) string {
	code, data := do(t, "POST", base+"/sessions"+query, request)
	if code != http.StatusCreated {
		t.Fatalf("POST /sessions: %d %s", code, data)
	}
	var v struct{ ID string }
	json.Unmarshal(data, &v)
	return v.ID
}

type result struct {
	stdout, stderr strings.Builder
	exit           Status
	exitFields     map[string]any // the exit event as served, to see which fields it has
	events         int
}

// sse runs CMD in session ID and reads its events to the end.
// With ONEVENT, the output is handed to it and not kept.
func sse(t *testing.T, ctx context.Context, base, id string, cmd map[string]any,
	onEvent func(event, data string) bool) *result {
	data, _ := json.Marshal(cmd)
	req, _ := http.NewRequestWithContext(ctx, "POST", base+"/sessions/"+id+"/commands", bytes.NewReader(data))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST commands: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("POST commands: %d %s", resp.StatusCode, body)
	}
	res := &result{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var event string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			payload := strings.TrimPrefix(line, "data: ")
			res.events++
			switch event {
			case "stdout", "stderr":
				if onEvent != nil {
					break
				}
				var s string
				json.Unmarshal([]byte(payload), &s)
				if event == "stdout" {
					res.stdout.WriteString(s)
				} else {
					res.stderr.WriteString(s)
				}
			case "exit":
				json.Unmarshal([]byte(payload), &res.exit)
				json.Unmarshal([]byte(payload), &res.exitFields)
			case "error":
				t.Fatalf("command error: %s", payload)
			}
			if onEvent != nil && !onEvent(event, payload) {
				return res
			}
		}
	}
	return res
}

func run(t *testing.T, base, id, script string) *result {
	return sse(t, context.Background(), base, id, map[string]any{"argv": []string{"sh", "-c", script}}, nil)
}

func TestCapabilitiesNameTheConfiguredWorkspaces(t *testing.T) {
	ws := wsRoot(t)
	_, base := newServer(t, ws, "")
	code, data := do(t, "GET", base+"/capabilities", nil)
	var doc struct {
		Available         bool     `json:"available"`
		Isolator          string   `json:"isolator"`
		AllowedWorkspaces []string `json:"allowed_workspaces"`
	}
	if code != 200 || json.Unmarshal(data, &doc) != nil {
		t.Fatalf("GET /capabilities: %d %s", code, data)
	}
	if !doc.Available || doc.Isolator != "bubblewrap" || len(doc.AllowedWorkspaces) != 1 ||
		doc.AllowedWorkspaces[0] != ws {
		t.Fatalf("capabilities: %+v", doc)
	}
}

func TestRequestsAreRefusedWithTheLibrarysMessage(t *testing.T) {
	_, base := newServer(t, wsRoot(t), "")
	code, data := do(t, "POST", base+"/sessions", `{"profile": "strict", "network": "host"}`)
	if code != http.StatusBadRequest || !strings.Contains(string(data), "the host network is refused") {
		t.Fatalf("a widening request: %d %s", code, data)
	}
	code, data = do(t, "POST", base+"/sessions", `{"profile": "/etc/passwd"}`)
	if code != http.StatusBadRequest || !strings.Contains(string(data), `is not offered (offered: strict, balanced)`) {
		t.Fatalf("a profile path: %d %s", code, data)
	}
}

func TestTwentySessionsAtOnce(t *testing.T) {
	_, base := newServer(t, wsRoot(t), "")
	var wg sync.WaitGroup
	errs := make(chan string, 20)
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			id := createSession(t, base, "", `{"profile": "strict"}`)
			res := run(t, base, id, fmt.Sprintf("echo session %d; echo err %d >&2; exit %d", i, i, i%7))
			if res.stdout.String() != fmt.Sprintf("session %d\n", i) || res.stderr.String() != fmt.Sprintf("err %d\n", i) ||
				res.exit.ExitCode != i%7 {
				errs <- fmt.Sprintf("session %d: %q %q %+v", i, res.stdout.String(), res.stderr.String(), res.exit)
			}
			// Served, and false: these sessions have no filtering proxy to lose.
			if died, ok := res.exitFields["proxy_died"]; !ok || died != false {
				errs <- fmt.Sprintf("session %d: the exit event's proxy_died is %v (present: %v), not false: %v",
					i, died, ok, res.exitFields)
			}
			if code, data := do(t, "DELETE", base+"/sessions/"+id, nil); code != http.StatusNoContent {
				errs <- fmt.Sprintf("DELETE %s: %d %s", id, code, data)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestOutputFloodStreamsWithFlatMemory(t *testing.T) {
	_, base := newServer(t, wsRoot(t), "")
	id := createSession(t, base, "", `{"profile": "strict"}`)
	const size = 64 << 20
	var before, peak runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, n := 0, 0
	res := sse(t, context.Background(), base, id, map[string]any{"argv": []string{"sh", "-c",
		fmt.Sprintf("head -c %d /dev/zero | tr '\\0' x", size)}}, func(event, data string) bool {
		if event == "stdout" {
			got += len(data) - 2 // the JSON quotes
			// What is live after a collection: the garbage of the chunks
			// streamed so far does not count, a buffer that grows would.
			if n++; n%256 == 0 {
				runtime.GC()
				runtime.ReadMemStats(&peak)
				if peak.HeapAlloc > before.HeapAlloc+16<<20 {
					t.Fatalf("the live heap grew by %d MiB while streaming", (peak.HeapAlloc-before.HeapAlloc)>>20)
				}
			}
		}
		return true
	})
	if got != size || res.exit.ExitCode != 0 {
		t.Fatalf("streamed %d of %d bytes, exit %+v", got, size, res.exit)
	}
}

func TestATimeoutKillsTheCommand(t *testing.T) {
	_, base := newServer(t, wsRoot(t), "")
	id := createSession(t, base, "", `{"profile": "strict"}`)
	start := time.Now()
	res := sse(t, context.Background(), base, id, map[string]any{"argv": []string{"sleep", "30"},
		"timeout_ms": 300}, nil)
	if !res.exit.TimedOut || res.exit.Signal != int(syscall.SIGKILL) || time.Since(start) > 10*time.Second {
		t.Fatalf("timeout: %+v after %v", res.exit, time.Since(start))
	}
	// Above the policy's wall limit: refused, not lowered.
	code, data := do(t, "POST", base+"/sessions/"+id+"/commands",
		map[string]any{"argv": []string{"true"}, "timeout_ms": 24 * 3600 * 1000})
	if code != http.StatusBadRequest || !strings.Contains(string(data), "limit wall") {
		t.Fatalf("a timeout above the policy's: %d %s", code, data)
	}
}

func TestAClientThatGoesAwayKillsItsCommand(t *testing.T) {
	_, base := newServer(t, wsRoot(t), "")
	id := createSession(t, base, "", `{"profile": "strict"}`)
	ctx, cancel := context.WithCancel(context.Background())
	started, gone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(gone)
		var once sync.Once
		sse(t, ctx, base, id, map[string]any{"argv": []string{"sh", "-c",
			"echo $$ > /tmp/pid; echo started; exec sleep 60"}}, func(event, data string) bool {
			if event == "stdout" {
				once.Do(func() { close(started) })
			}
			return true // read on until the client goes away
		})
	}()
	<-started
	if run(t, base, id, "kill -0 $(cat /tmp/pid)").exit.ExitCode != 0 {
		t.Fatal("the command is not running while its client is there")
	}
	cancel()
	<-gone
	for deadline := time.Now().Add(10 * time.Second); ; {
		if run(t, base, id, "kill -0 $(cat /tmp/pid) 2>/dev/null").exit.ExitCode != 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the command outlived its client by 10 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestBackgroundCommandStatusLogsAndInterrupt(t *testing.T) {
	_, base := newServer(t, wsRoot(t), "")
	id := createSession(t, base, "", `{"profile": "strict"}`)
	code, data := do(t, "POST", base+"/sessions/"+id+"/commands", map[string]any{"argv": []string{"sh", "-c",
		"trap 'echo got INT; exit 4' INT; echo ready; while :; do sleep 0.05; done"}, "background": true})
	var bg struct{ ID string }
	if code != http.StatusAccepted || json.Unmarshal(data, &bg) != nil {
		t.Fatalf("background: %d %s", code, data)
	}
	url := base + "/sessions/" + id + "/commands/" + bg.ID
	var logs struct {
		Data string
		Next int64
		Done bool
	}
	waitLogs := func(cursor int64, want string) {
		for deadline := time.Now().Add(10 * time.Second); ; {
			_, data := do(t, "GET", fmt.Sprintf("%s/logs?cursor=%d", url, cursor), nil)
			json.Unmarshal(data, &logs)
			if strings.Contains(logs.Data, want) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("logs from %d: %q, no %q", cursor, logs.Data, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitLogs(0, "ready\n")
	cursor := logs.Next
	_, data = do(t, "GET", url, nil)
	if !strings.Contains(string(data), `"running":true`) {
		t.Fatalf("status while it runs: %s", data)
	}
	if code, data = do(t, "POST", url+"/interrupt", nil); code != http.StatusNoContent {
		t.Fatalf("interrupt: %d %s", code, data)
	}
	waitLogs(cursor, "got INT\n")
	if logs.Data != "got INT\n" {
		t.Fatalf("the cursor gave the old output again: %q", logs.Data)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		_, data = do(t, "GET", url, nil)
		if strings.Contains(string(data), `"running":false`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still running: %s", data)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(string(data), `"exit_code":4`) {
		t.Fatalf("status: %s", data)
	}
}

func TestFilesUploadStatListDownload(t *testing.T) {
	_, base := newServer(t, wsRoot(t), "")
	id := createSession(t, base, "", `{"profile": "strict"}`)
	files := base + "/sessions/" + id + "/files"
	blob := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	if code, data := do(t, "PUT", files+"?path=data.bin", blob); code != http.StatusNoContent {
		t.Fatalf("upload: %d %s", code, data)
	}
	if res := run(t, base, id, "mkdir sub && ln -s data.bin link && wc -c < data.bin"); res.stdout.String() != "1048576\n" {
		t.Fatalf("the sandbox sees: %q", res.stdout.String())
	}
	code, data := do(t, "GET", files+"?path=data.bin", nil)
	if code != 200 || !bytes.Equal(data, blob) {
		t.Fatalf("download: %d, %d bytes", code, len(data))
	}
	_, data = do(t, "GET", files+"/list?path=.", nil)
	var list []FileInfo
	json.Unmarshal(data, &list)
	types := map[string]string{}
	for _, e := range list {
		types[e.Name] = e.Type
	}
	if types["data.bin"] != "file" || types["sub"] != "directory" || types["link"] != "symlink" {
		t.Fatalf("list: %s", data)
	}
	_, data = do(t, "GET", files+"/stat?path=link", nil)
	var info FileInfo
	if json.Unmarshal(data, &info); info.Type != "symlink" || info.LinkTarget != "data.bin" {
		t.Fatalf("stat of the symlink: %s", data)
	}
	// A symlink is never followed, by download or upload.
	if code, data = do(t, "GET", files+"?path=link", nil); code != http.StatusForbidden {
		t.Fatalf("download through a symlink: %d %s", code, data)
	}
	if code, data = do(t, "PUT", files+"?path=link", "x"); code != http.StatusForbidden {
		t.Fatalf("upload over a symlink: %d %s", code, data)
	}
	if code, data = do(t, "GET", files+"?path=../etc/passwd", nil); code/100 != 4 {
		t.Fatalf("outside the workspace: %d %s", code, data)
	}
}

func TestShellStateSessionCarriesCdAndExport(t *testing.T) {
	_, base := newServer(t, wsRoot(t), "")
	id := createSession(t, base, "?shell_state=1", `{"profile": "strict"}`)
	for _, argv := range [][]string{{"cd", "/tmp"}, {"export", "STEP=two"}} {
		if res := sse(t, context.Background(), base, id, map[string]any{"argv": argv}, nil); res.exit.ExitCode != 0 {
			t.Fatalf("%v: %+v %q", argv, res.exit, res.stderr.String())
		}
	}
	if res := run(t, base, id, "pwd; echo $STEP"); res.stdout.String() != "/tmp\ntwo\n" {
		t.Fatalf("the next command: %q", res.stdout.String())
	}
	script := "cd /\nexport FROM=script\n" + strings.Repeat("# padding to make it large\n", 8000)
	if res := sse(t, context.Background(), base, id, map[string]any{"script": script}, nil); res.exit.ExitCode != 0 {
		t.Fatalf("script: %+v %q", res.exit, res.stderr.String())
	}
	if res := run(t, base, id, "pwd; echo $FROM"); res.stdout.String() != "/\nscript\n" {
		t.Fatalf("after the script: %q", res.stdout.String())
	}
}

func TestServicesOutliveTheirCommandAndAreListed(t *testing.T) {
	_, base := newServer(t, wsRoot(t), "")
	id := createSession(t, base, "", `{"profile": "strict"}`)
	res := sse(t, context.Background(), base, id, map[string]any{"argv": []string{"sh", "-c",
		"sleep 300 >/dev/null 2>&1 & echo $! > /tmp/svc"}, "keep_services": true}, nil)
	if res.exit.ExitCode != 0 {
		t.Fatalf("start: %+v", res.exit)
	}
	if run(t, base, id, "kill -0 $(cat /tmp/svc)").exit.ExitCode != 0 {
		t.Fatal("the service did not outlive its command")
	}
	_, data := do(t, "GET", base+"/sessions/"+id, nil)
	if !strings.Contains(string(data), `"command":"sh -c sleep 300`) || !strings.Contains(string(data), `"state":"running"`) {
		t.Fatalf("session info: %s", data)
	}
}

// ---- a daemon killed and started again ------------------------------------------------

type daemon struct {
	cmd  *exec.Cmd
	base string
}

func startDaemon(t *testing.T, ws, state string) *daemon {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "EXECD_GO_DAEMON=1", "EXECD_GO_WSROOT="+ws, "EXECD_GO_STATE="+state)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err = cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening ") {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the daemon did not start: %q %v", line, err)
	}
	return &daemon{cmd, "http://" + strings.TrimSpace(strings.TrimPrefix(line, "listening "))}
}

func TestDaemonKilledAndRestartedAttachesToItsSessions(t *testing.T) {
	ws := wsRoot(t)
	state, err := os.MkdirTemp("", "execd-go-state.")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(state)
	os.Chmod(state, 0o700)
	d1 := startDaemon(t, ws, state)
	id := createSession(t, d1.base, "", `{"profile": "strict"}`)
	if res := run(t, d1.base, id, "echo survived > /tmp/note"); res.exit.ExitCode != 0 {
		t.Fatalf("write: %+v", res.exit)
	}
	d1.cmd.Process.Signal(syscall.SIGKILL)
	d1.cmd.Wait()
	if _, err := os.Stat(filepath.Join(state, id+".sock")); err != nil {
		t.Fatalf("the detached session is gone with its daemon: %v", err)
	}
	d2 := startDaemon(t, ws, state)
	if res := run(t, d2.base, id, "cat /tmp/note"); res.stdout.String() != "survived\n" {
		t.Fatalf("after the restart: %q %q", res.stdout.String(), res.stderr.String())
	}
	if code, data := do(t, "DELETE", d2.base+"/sessions/"+id, nil); code != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", code, data)
	}
	if _, err := os.Stat(filepath.Join(state, id+".sock")); !os.IsNotExist(err) {
		t.Fatalf("the destroyed session's socket is left: %v", err)
	}
}
