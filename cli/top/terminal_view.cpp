// The full-screen view of `hangscope top`, with ncurses: the rows of top_text.hpp drawn
// into the screen, which ncurses then sends as the changes since the last refresh (the
// screen is erased, never cleared, so that nothing flickers), and the keys.
#include "terminal_view.hpp"

#include <curses.h>

#include <algorithm>
#include <chrono>

#include "top_text.hpp"

namespace hangscope::cli::top {

namespace {

constexpr int kCtrlL = 12;
constexpr int kEscape = 27;

// The terminal in curses mode for the life of the object: restored however the view
// ends (a return, an exception).
class Screen {
 public:
  Screen() {
    initscr();
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);
    timeout(100);  // keys at once; new frames at most 0.1 s late
  }
  ~Screen() { endwin(); }
  Screen(const Screen&) = delete;
  Screen& operator=(const Screen&) = delete;
};

enum class Mode { table, detail, help, filter };

class View {
 public:
  View(TopChannel& ch, const std::atomic<bool>& stop, const std::atomic<bool>& signalled,
       bool unicode, uint64_t max_frames)
      : ch_(ch), stop_(stop), signalled_(signalled), unicode_(unicode), max_frames_(max_frames) {}

  void run() {
    bool dirty = true;
    while (!stop_.load() && !signalled_.load()) {
      if (std::optional<TopFrame> f = ch_.take_frame()) {
        latest_ = std::move(*f);
        ++frames_;
        if (!paused_) {
          base_ = latest_;
          reshow();
          if (mode_ == Mode::detail) refresh_detail();
        }
        dirty = true;
      }
      if (std::optional<std::string> m = ch_.take_message()) {
        message_ = std::move(*m);
        message_until_ = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        dirty = true;
      }
      if (!message_.empty() && std::chrono::steady_clock::now() > message_until_) {
        message_.clear();
        dirty = true;
      }
      if (dirty) draw();
      dirty = false;
      const int key = getch();
      if (key == ERR) {
        if (max_frames_ && frames_ >= max_frames_) return;
        continue;
      }
      dirty = true;
      if (!handle(key)) return;
    }
  }

 private:
  size_t rows() const { return shown_.groups.size() + shown_.tasks.size(); }
  bool on_group() const { return sel_ < shown_.groups.size(); }

  // The rows of the frame shown (the newest, or the one paused on) by the sort and
  // filter in use.
  void reshow() {
    shown_ = base_;
    apply_view(shown_, options_);
    sel_ = std::min(sel_, rows() ? rows() - 1 : 0);
  }

  void refresh_detail() {
    // The same group or task in the newest frame; as it was when it is gone.
    for (const TopGroupRow& g : shown_.groups)
      if (detail_group_ && g.name == detail_key_) detail_ = detail_lines(g);
    for (const TopTaskRow& t : shown_.tasks)
      if (!detail_group_ && std::to_string(t.tid) == detail_key_) detail_ = detail_lines(t, shown_);
  }

  // False: quit.
  bool handle(int key) {
    if (key == KEY_RESIZE || key == kCtrlL) {
      if (key == kCtrlL) clearok(curscr, TRUE);  // a garbled screen: send it all again
      return true;
    }
    switch (mode_) {
      case Mode::help:
        mode_ = Mode::table;
        return true;
      case Mode::filter: return filter_key(key), true;
      case Mode::detail:
        if (key == 'q') return false;
        if (key == '\r' || key == '\n' || key == KEY_ENTER || key == kEscape || key == KEY_LEFT ||
            key == KEY_BACKSPACE)
          mode_ = Mode::table;
        return true;
      case Mode::table: break;
    }
    const size_t n = rows();
    const size_t page = static_cast<size_t>(std::max(1, LINES / 3));
    switch (key) {
      case 'q': return false;
      case 'p':
        paused_ = !paused_;
        if (!paused_) base_ = latest_;
        reshow();
        break;
      case KEY_UP: sel_ = sel_ ? sel_ - 1 : 0; break;
      case KEY_DOWN: sel_ = n && sel_ + 1 < n ? sel_ + 1 : sel_; break;
      case KEY_PPAGE: sel_ = sel_ > page ? sel_ - page : 0; break;
      case KEY_NPAGE: sel_ = n ? std::min(n - 1, sel_ + page) : 0; break;
      case KEY_HOME: sel_ = 0; break;
      case KEY_END: sel_ = n ? n - 1 : 0; break;
      case '\r':
      case '\n':
      case KEY_ENTER:
        if (!n) break;
        detail_group_ = on_group();
        if (detail_group_) {
          detail_key_ = shown_.groups[sel_].name;
          detail_ = detail_lines(shown_.groups[sel_]);
        } else {
          const TopTaskRow& t = shown_.tasks[sel_ - shown_.groups.size()];
          detail_key_ = std::to_string(t.tid);
          detail_ = detail_lines(t, shown_);
        }
        mode_ = Mode::detail;
        break;
      case 's':
        if (on_group() || shown_.tasks.empty())
          options_.group_sort = next(options_.group_sort);
        else
          options_.task_sort = next(options_.task_sort);
        reshow();
        break;
      case '/':
        mode_ = Mode::filter;
        typed_ = options_.filter;
        break;
      case 'w':
        ch_.ask_write();
        message_ = "writing the window...";
        message_until_ = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        break;
      case '?':
      case 'h': mode_ = Mode::help; break;
      default: break;
    }
    return true;
  }

  void filter_key(int key) {
    if (key == '\r' || key == '\n' || key == KEY_ENTER) {
      options_.filter = typed_;
      mode_ = Mode::table;
      sel_ = 0;
      reshow();
    } else if (key == kEscape) {
      mode_ = Mode::table;
    } else if (key == KEY_BACKSPACE || key == 127 || key == 8) {
      if (!typed_.empty()) typed_.pop_back();
    } else if (key >= 32 && key < 127) {
      typed_ += static_cast<char>(key);
    }
  }

  void line(int y, const std::string& text, attr_t attr = A_NORMAL) {
    if (y < 0 || y >= LINES) return;
    if (attr) attron(attr);
    mvaddstr(y, 0, fit(text, static_cast<size_t>(COLS), attr & A_REVERSE).c_str());
    if (attr) attroff(attr);
  }

  void draw() {
    erase();
    const size_t width = static_cast<size_t>(std::max(COLS, 1));
    const int height = LINES;
    int y = 0;
    for (const std::string& l : wrap(shown_.verdict, width, height >= 24 ? 2 : 1))
      line(y++, l, A_BOLD);
    const int body_end = height - 1;  // the status line is the last
    if (mode_ == Mode::help || mode_ == Mode::detail) {
      const std::vector<std::string> text = mode_ == Mode::help ? help_lines() : detail_;
      ++y;
      for (const std::string& l : text)
        for (const std::string& part : wrap(l, width, 4))
          if (y < body_end) line(y++, part);
    } else {
      draw_tables(y, body_end, width);
    }
    std::string status;
    if (mode_ == Mode::filter)
      status = "filter (comm or group; Enter applies, Esc cancels): /" + typed_;
    else if (!message_.empty())
      status = message_;
    else
      status = status_line(shown_.status, options_, paused_, width > 8 ? width - 8 : width) +
               "  ? help";
    line(height - 1, status, A_REVERSE);
    refresh();
  }

  void draw_tables(int y, int end, size_t width) {
    const int avail = end - y - 2;  // two headings
    if (avail < 2) return;
    const int groups = static_cast<int>(shown_.groups.size());
    int group_rows = std::min(groups, std::max(3, avail / 2));
    group_rows = std::min(group_rows, avail - 1);
    const int task_rows = avail - group_rows;
    line(y++, group_heading(width), A_BOLD | A_UNDERLINE);
    scroll_to(group_top_, on_group() ? sel_ : group_top_, static_cast<size_t>(group_rows));
    for (int i = 0; i < group_rows; ++i) {
      size_t r = group_top_ + static_cast<size_t>(i);
      if (r < shown_.groups.size())
        line(y, group_line(shown_.groups[r], width, unicode_), r == sel_ ? A_REVERSE : A_NORMAL);
      ++y;
    }
    line(y++, task_heading(width), A_BOLD | A_UNDERLINE);
    const size_t task_sel = on_group() ? task_top_ : sel_ - shown_.groups.size();
    scroll_to(task_top_, task_sel, static_cast<size_t>(task_rows));
    for (int i = 0; i < task_rows; ++i) {
      size_t r = task_top_ + static_cast<size_t>(i);
      if (r < shown_.tasks.size())
        line(y, task_line(shown_.tasks[r], width),
             !on_group() && r == task_sel ? A_REVERSE : A_NORMAL);
      ++y;
    }
  }

  // Moves the first shown row so that `sel` is visible in `rows` rows.
  static void scroll_to(size_t& top, size_t sel, size_t rows) {
    if (rows == 0) return;
    if (sel < top) top = sel;
    if (sel >= top + rows) top = sel - rows + 1;
  }

  TopChannel& ch_;
  const std::atomic<bool>& stop_;
  const std::atomic<bool>& signalled_;
  bool unicode_;
  uint64_t max_frames_, frames_ = 0;
  TopFrame latest_, base_, shown_;
  TopViewOptions options_;
  bool paused_ = false;
  Mode mode_ = Mode::table;
  size_t sel_ = 0, group_top_ = 0, task_top_ = 0;
  std::vector<std::string> detail_;
  std::string detail_key_;
  bool detail_group_ = false;
  std::string typed_, message_;
  std::chrono::steady_clock::time_point message_until_{};
};

}  // namespace

void run_terminal_view(TopChannel& channel, const std::atomic<bool>& stop,
                       const std::atomic<bool>& signalled, bool unicode, uint64_t max_frames) {
  Screen screen;
  View view(channel, stop, signalled, unicode, max_frames);
  view.run();
}

}  // namespace hangscope::cli::top
