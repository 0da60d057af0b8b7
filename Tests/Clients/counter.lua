#!lua name=millrace
-- The daemon's built-in `counter` kind as Redis functions, so that the client matrix runs
-- against redis-server too (Tests/Clients/matrix.sh redis): SPAWN counter N = FCALL spawn 1 N,
-- SEND N I = FCALL send 1 N I, STATE N = GET N. Replies, errors and the pub/sub message are
-- those of protocol v2 (/work/notes/protocol-v2-contract.md).
redis.register_function('spawn', function(keys)
  if redis.call('EXISTS', keys[1]) == 1 then
    return redis.error_reply('EXISTS machine ' .. keys[1] .. ' exists')
  end
  redis.call('SET', keys[1], '0')
  return redis.status_reply('OK')
end)

redis.register_function('send', function(keys, args)
  local from, input = redis.call('GET', keys[1]), args[1]
  if not from then return redis.error_reply('NOMACHINE no machine ' .. keys[1]) end
  local n = tonumber(from)
  if input == 'inc' then n = n + 1
  elseif input == 'dec' and n > 0 then n = n - 1
  elseif input == 'reset' then n = 0
  else return redis.error_reply('REJECTED ' .. input .. ' in ' .. from) end
  local to = string.format('%d', n)
  redis.call('SET', keys[1], to)
  redis.call('PUBLISH', keys[1], input .. ' ' .. from .. ' ' .. to)
  return { from, to }
end)
