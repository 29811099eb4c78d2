// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

import {ICreatorRegistry} from "./LaunchTypes.sol";

/// @title AnnouncementRegistry
/// @notice Token announcements posted by a token's current creator (as its factory reports it), with
/// single-use ids per token. Texts live in events only.
contract AnnouncementRegistry {
    address public immutable factory;

    mapping(address => bool) public isTokenRegistered;
    mapping(address => mapping(bytes32 => bool)) public isAnnouncementIdUsed;

    event TokenRegistered(address indexed token);
    event AnnouncementPosted(
        address indexed token,
        address indexed creator,
        bytes32 indexed announcementId,
        string description,
        string announcementURI
    );

    error NotFactory();
    error UnknownToken(address token);
    error NotCreator();
    error IdAlreadyUsed(bytes32 announcementId);

    constructor(address factory_) {
        factory = factory_;
    }

    function registerToken(address token) external {
        if (msg.sender != factory) revert NotFactory();
        isTokenRegistered[token] = true;
        emit TokenRegistered(token);
    }

    function postAnnouncement(
        address token,
        bytes32 announcementId,
        string calldata description,
        string calldata announcementURI
    ) external {
        if (!isTokenRegistered[token]) revert UnknownToken(token);
        if (msg.sender != ICreatorRegistry(factory).currentCreatorOf(token)) revert NotCreator();
        if (isAnnouncementIdUsed[token][announcementId]) revert IdAlreadyUsed(announcementId);
        isAnnouncementIdUsed[token][announcementId] = true;
        emit AnnouncementPosted(token, msg.sender, announcementId, description, announcementURI);
    }
}
