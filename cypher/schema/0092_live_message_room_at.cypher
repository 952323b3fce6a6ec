CREATE INDEX live_message_room_at IF NOT EXISTS FOR (m:LiveMessage) ON (m.room, m.at)
