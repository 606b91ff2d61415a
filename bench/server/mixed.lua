-- Mixed load for the RSS run (bench/server-rss.sh): tiles of several sizes and fonts (GET and POST),
-- reports (PDF, PNG and SVG), bad requests (400) and impatient requests (a 5 ms deadline: most are
-- cancelled). Client hang-ups come from curl in the script (wrk does not close a connection mid-request).
local requests = {}
local n = 0

local function add(method, path, body)
  local headers = {}
  if body then headers["Content-Type"] = "application/json" end
  table.insert(requests, wrk.format(method, path, headers, body))
end

init = function(args)
  local words = string.rep("The quick brown fox jumps over the lazy dog. ", 60)
  add("GET", "/tile.png?text=Hello%2C%20world&width=200&scale=2")
  add("GET", "/tile.png?markup=%3Cb%3EBold%3C%2Fb%3E%20and%20%3Ci%3Eitalic%3C%2Fi%3E&width=375&scale=3&font=Serif%2016")
  add("GET", "/tile.png?text=%E4%B8%96%E7%95%8C%20%D9%85%D8%B1%D8%AD%D8%A8%D8%A7%20%F0%9F%91%8B&width=300&scale=2")
  add("POST", "/tile.png", '{"text": "' .. words .. '", "width": 600, "scale": 2, "align": "justify"}')
  add("POST", "/tile.png?timeout=5", '{"text": "' .. string.rep(words, 4) .. '", "width": 800, "scale": 2}')
  add("POST", "/report?format=pdf",
    '{"title": "Load", "content": [{"heading": "Part"}, {"paragraph": "' .. words .. '"}, ' ..
    '{"table": {"columns": ["a", "b"], "rows": [["1", "2"], ["3", "4"]]}}]}')
  add("POST", "/report?format=png&scale=1",
    '{"page": {"width": 400, "height": 300}, "content": [{"paragraph": "' .. words .. '"}]}')
  add("POST", "/report?format=svg",
    '{"title": "Vector", "content": [{"heading": "Part"}, {"paragraph": "' .. words .. '"}]}')
  add("GET", "/tile.png?text=" .. string.rep("Tile%20", 300) .. "&width=1200&scale=3")
  add("GET", "/tile.png?text=x&width=nan")
  add("GET", "/tile.png?text=Tile%20" .. tostring(math.random(1000)) .. "&width=150&scale=1")
end

request = function()
  n = n + 1
  return requests[(n % #requests) + 1]
end
