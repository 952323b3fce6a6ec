"""Long, chatty assistant replies for the haystack benchmark's ``--replies assistant`` shape.

A personal assistant's history is the user telling things in short messages ("I went to a support
group yesterday, it was so powerful") and the assistant answering at length: an opener that echoes
the user's words, then paragraphs of advice, lists and follow-up questions that repeat the topic's
words without telling anything new about the user. :func:`assistant_reply` writes such a reply for
one message, deterministic for its ``rng``: 1,500-4,000 characters built from :data:`PARAGRAPHS`,
whose ``{a}``/``{b}``/``{c}`` slots take content words of the message.
"""

from __future__ import annotations

import random
import re

__all__ = ["PARAGRAPHS", "assistant_reply", "content_words"]

_STOP_TEXT = """
a about above after again all also am an and any are as at be because been before being below between both but
by can could did do does doing don down during each few for from further had has have having he her here hers
him his how i if in into is it its itself just like me more most my myself no nor not now of off on once only or
other our ours out over own really same she should so some such than that the their them then there these they
this those through to too under until up very was we were what when where which while who whom why will with
would you your yours yeah yes oh wow thanks thank hey hi great good so much lot lots totally know think thing
things going gonna got get really pretty sure glad super awesome amazing cool nice love loved shares photo
congrats congratulations today tonight tomorrow yesterday week weeks weekend month months year years last next
ago days monday tuesday wednesday thursday friday saturday sunday january february march april june july
august september october november december recently lately soon
"""
_STOP = frozenset(_STOP_TEXT.split())

OPENERS = (
    "That sounds wonderful! It's clear that {a} means a lot to you, and it's great that you shared it.",
    "Thank you for telling me about {a}. It sounds like {b} has been on your mind, and that's completely "
    "understandable.",
    "What a lovely thing to hear about {a}! Moments like this, especially around {b}, are worth savouring.",
    "I'm really glad you brought up {a}. There's a lot to say about {b}, so let me share a few thoughts.",
    "It sounds like {a} and {b} have been a big part of your week. Here are some ideas that might help.",
    "That's a great question to think about. When it comes to {a}, a few things usually make a difference.",
)

PARAGRAPHS = (
    "Here are a few suggestions that many people find helpful when thinking about {a}:\n\n"
    "1. **Start small.** Set aside a little time each week for {a}, so it becomes a habit rather than a chore.\n"
    "2. **Keep notes.** Writing down what went well with {b} helps you notice patterns over time.\n"
    "3. **Share it.** Talking about {a} with friends or family can make the experience richer.\n"
    "4. **Be patient with yourself.** Progress with {c} is rarely a straight line.",
    "It can also help to reflect on why {a} matters to you. Is it the sense of connection, the feeling of "
    "accomplishment, or simply the joy of doing something you care about? Understanding your motivation "
    "makes it easier to keep going when things get busy, and it helps you choose what to focus on next.",
    "If you'd like to go further with {a}, you might look for local groups, community centres or online "
    "communities where people share similar interests. Many of them organise regular meetups, workshops "
    "or events, and they are usually welcoming to newcomers who are curious about {b}.",
    "Another idea is to plan something around {b} in the coming weeks. Having a concrete goal, even a "
    "modest one, gives you something to look forward to. You could set a date, invite someone along, "
    "and make a short list of what you need to prepare beforehand.",
    "Remember to take care of yourself along the way. Balancing {a} with rest, work and time with the "
    "people you love is important. It's okay to slow down when you need to; the things that matter "
    "most tend to still be there when you come back to them.",
    "Some people find it useful to keep a small journal. A few lines a day about {a}, {b} or anything "
    "else that stood out can be surprisingly meaningful to read back later, and it's a gentle way to "
    "notice how your feelings and priorities change over the months.",
    "### A few practical tips\n\n- Make a simple schedule and keep it visible.\n- Break bigger plans "
    "about {a} into small steps.\n- Celebrate the small wins, not just the big milestones.\n- Ask for "
    "help or advice when you feel stuck; most people are happy to share what worked for them.\n- "
    "Leave some room for spontaneity: not everything about {b} needs a plan.",
    "It's also worth thinking about the resources that could support you. Books, podcasts and short "
    "online courses about {a} are easy to fit into a busy week. Libraries often have more than you'd "
    "expect, and many good materials about {c} are free.",
    "From what you've described, it sounds like you've already put a lot of thought and heart into "
    "{a}. That kind of dedication usually pays off, even if the results take a while to show. Trust "
    "the process and keep doing what feels right for you.",
    "If you ever feel overwhelmed, try stepping back and asking yourself what a good outcome would look "
    "like in a month or two. Sometimes the clearest path forward with {b} is simply the next small, "
    "doable step rather than a big change all at once.",
    "Connecting with others who share your interest in {a} can be really rewarding. You could exchange "
    "ideas, celebrate progress together, and learn from people who have been doing it for longer. "
    "Those relationships often become an important source of encouragement.",
    "When you look back on this period, you may find that experiences like {a} shaped you more than "
    "you expected. It's worth pausing now and then to appreciate how far you've come and the people "
    "who have been part of the journey.",
    "### Questions you might ask yourself\n\n- What do I enjoy most about {a}?\n- What would I like to "
    "try next with {b}?\n- Who could I share this with?\n- What small change would make the biggest "
    "difference this month?",
    "Finally, don't forget to have fun with it. Whether it's {a}, {b} or something completely new, the "
    "point is to enjoy the experience and to let it add something good to your life. I'd love to hear "
    "how it goes!",
    "If it helps, I can suggest a simple weekly plan, some reading on {a}, or ideas for getting friends "
    "involved. Just let me know what would be most useful, and we can take it from there together.",
    "Many people say that the hardest part is getting started, and you've clearly already done that. "
    "Keeping the momentum going with {c} is mostly about consistency: a little bit regularly is better "
    "than a lot once in a while.",
)


def content_words(text: str, n: int = 3) -> list[str]:
    """The first ``n`` distinct words of ``text`` (at least four letters) that are not stopwords,
    longest first among equals in order of appearance; ``["this"]``-style fallbacks when none."""
    seen: list[str] = []
    for w in re.findall(r"[A-Za-z][A-Za-z'-]{3,}", text):
        lw = w.lower()
        if lw not in _STOP and lw not in seen:
            seen.append(lw)
    seen.sort(key=len, reverse=True)
    out = seen[:n]
    fallbacks = ["this", "your plans", "everyday life"]
    return out + fallbacks[len(out):n] if len(out) < n else out


def assistant_reply(message: str, rng: random.Random) -> str:
    """A 1,500-4,000-character assistant reply to ``message`` that echoes its words and adds nothing
    about the user."""
    words = content_words(message)
    slots = {"a": words[0], "b": words[1], "c": words[2]}
    target = rng.randint(1500, 4000)
    out = [rng.choice(OPENERS).format_map(slots)]
    for p in rng.sample(PARAGRAPHS, len(PARAGRAPHS)):
        out.append(p.format_map({k: rng.choice(words) if rng.random() < 0.3 else v for k, v in slots.items()}))
        if sum(len(x) for x in out) >= target:
            break
    return "\n\n".join(out)
